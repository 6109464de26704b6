CREATE TABLE Orders_in_file (
    `user` BIGINT,
    product STRING,
    order_time_string STRING,
    order_time AS to_timestamp(order_time)
)
WITH (
    'connector' = 'filesystem',
    'path' = '${CASE_DIR}/orders.jsonl',
    'format' = 'json'
);
CREATE TABLE out_rows (`user` BIGINT, product STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT `user`, product FROM Orders_in_file;
