CREATE TABLE Orders_in_file (
    `user` BIGINT,
    product STRING,
    order_time_string STRING,
    amount INT,
    order_time AS to_timestamp(order_time_string)
)
WITH (
    'connector' = 'filesystem',
    'path' = '${CASE_DIR}/nowhere',
    'format' = 'csv'
);
CREATE TABLE Orders_in_json (
    -- Add watermark definition
    WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH (
    'connector' = 'filesystem',
    'path' = '${CASE_DIR}/orders.jsonl',
    'format' = 'json'
)
LIKE Orders_in_file (
    EXCLUDING ALL
    INCLUDING GENERATED
);
CREATE TABLE out_rows (window_start TIMESTAMP(3), c BIGINT, s INT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT window_start, COUNT(*), SUM(amount)
FROM TABLE(TUMBLE(TABLE Orders_in_json, DESCRIPTOR(order_time), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
