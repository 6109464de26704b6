CREATE TABLE Bid (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  item STRING,
  supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/bid.jsonl', 'format' = 'json');
CREATE TABLE out_rows (bidtime TIMESTAMP(3), price DECIMAL(10, 2), item STRING, supplier_id STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), rownum BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT *
  FROM (
    SELECT bidtime, price, item, supplier_id, window_start, window_end, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) as rownum
    FROM TABLE(
               TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
  ) WHERE rownum <= 3;
