CREATE TABLE Orders (
    `user` BIGINT,
    product STRING,
    order_time TIMESTAMP(3)
) WITH (
    'connector' = 'filesystem',
    'path' = '${CASE_DIR}/other.jsonl',
    'format' = 'json'
);
CREATE TABLE Orders_with_watermark (
    -- Add watermark definition
    WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH (
    -- Overwrite the path
    'path' = '${CASE_DIR}/orders.jsonl'
)
LIKE Orders;
CREATE TABLE out_rows (window_start TIMESTAMP(3), c BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT window_start, COUNT(*)
FROM TABLE(TUMBLE(TABLE Orders_with_watermark, DESCRIPTOR(order_time), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
