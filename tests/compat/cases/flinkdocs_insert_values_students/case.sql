CREATE TABLE students (name STRING, age INT, gpa DECIMAL(3, 2)) WITH ('connector' = 'print');
INSERT INTO students
  VALUES ('fred flintstone', 35, 1.28), ('barney rubble', 32, 2.32);
