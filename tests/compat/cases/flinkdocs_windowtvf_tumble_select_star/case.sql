CREATE TABLE Bid (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  item STRING,
  supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/bid.jsonl', 'format' = 'json');
CREATE TABLE out_rows (bidtime TIMESTAMP(3), price DECIMAL(10, 2), item STRING, supplier_id STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), window_time TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT * FROM TABLE(
   TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES));
