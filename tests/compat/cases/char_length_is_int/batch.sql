SELECT id, length(s) FROM n
