// What Flink 2.3 reads of a partition time with a formatter: its DefaultPartTimeExtractor (flink-connector-files
// 2.3.0, checked with javap) runs LocalDateTime.parse(text, DateTimeFormatter.ofPattern(pattern, Locale.ROOT)),
// else LocalDate.parse at midnight. tests/connectors/test_partition_formatter.py holds these answers. Run:
//     jshell -q scripts/java_partition_formatter.jsh
import java.time.*; import java.time.format.*; import java.util.*;
String[][] cases = {{"yyyy-MM-dd[ HH:mm]","2024-01-05"},{"yyyy-MM-dd[ HH:mm]","2024-01-05 10:20"},{"yyyy-MM-dd","2024-02-31"},{"yyyy-MM-dd","2024-13-01"},{"yyyy-MM-dd HH:mm:ss","2024-01-05 24:00:00"},{"yyyy-MM-dd HH:mm:ss","2024-01-05 24:00:01"},{"yyyy-MM-dd HH","2024-01-05 10"},{"yyyy-MM-dd","2024-01-32"},{"yyyy-MM-dd HH:mm","2024-01-05 10:60"}};
for (String[] c : cases) { DateTimeFormatter f = DateTimeFormatter.ofPattern(c[0], Locale.ROOT); String r; try { r = LocalDateTime.parse(c[1], f).toString(); } catch (DateTimeParseException e) { try { r = LocalDateTime.of(LocalDate.parse(c[1], f), LocalTime.MIDNIGHT).toString(); } catch (Exception e2) { r = "ERR " + e2.getMessage(); } } System.out.println(c[0] + " | " + c[1] + " -> " + r); }
try { DateTimeFormatter.ofPattern("yyyy#MM"); } catch (Exception e) { System.out.println("ofPattern # -> " + e.getMessage()); }
/exit
