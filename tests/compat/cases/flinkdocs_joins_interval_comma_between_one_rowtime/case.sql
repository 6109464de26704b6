CREATE TABLE Orders (id INT, item STRING, order_time TIMESTAMP(3), WATERMARK FOR order_time AS order_time - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE Shipments (order_id INT, ship_time TIMESTAMP(3), WATERMARK FOR ship_time AS ship_time - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/shipments.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, item STRING, order_time TIMESTAMP(3), ship_time TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT o.id, o.item, CAST(o.order_time AS TIMESTAMP(3)) AS order_time, s.ship_time
FROM Orders o, Shipments s
WHERE o.id = s.order_id
AND o.order_time BETWEEN s.ship_time - INTERVAL '4' HOUR AND s.ship_time;
