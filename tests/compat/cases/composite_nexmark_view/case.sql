CREATE TABLE events (
  event_type INT,
  person ROW<id BIGINT, name VARCHAR, city VARCHAR, `dateTime` TIMESTAMP(3)>,
  bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, `dateTime` TIMESTAMP(3)>,
  `dateTime` AS CASE WHEN event_type = 0 THEN person.`dateTime` ELSE bid.`dateTime` END,
  WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/events.jsonl', 'format' = 'json');
CREATE VIEW bid AS SELECT bid.auction, bid.bidder, bid.price, `dateTime` FROM events WHERE event_type = 2;
CREATE TABLE out_rows (auction BIGINT, window_start TIMESTAMP(3), bids BIGINT, top BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT auction, window_start, COUNT(*), MAX(price)
FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))
GROUP BY auction, window_start, window_end;
