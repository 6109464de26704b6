// What Flink 2.3 reads of a partition time with a formatter: its DefaultPartTimeExtractor (flink-connector-files
// 2.3.0, checked with javap) runs LocalDateTime.parse(text, DateTimeFormatter.ofPattern(pattern, Locale.ROOT)),
// else LocalDate.parse at midnight. tests/connectors/test_partition_formatter.py holds these answers. Run:
//     jshell -q scripts/java_partition_formatter.jsh
import java.time.*; import java.time.format.*; import java.util.*;
String[][] cases = {{"yyyy-MM-dd[ HH:mm]","2024-01-05"},{"yyyy-MM-dd[ HH:mm]","2024-01-05 10:20"},{"yyyy-MM-dd","2024-02-31"},{"yyyy-MM-dd","2024-13-01"},{"yyyy-MM-dd HH:mm:ss","2024-01-05 24:00:00"},{"yyyy-MM-dd HH:mm:ss","2024-01-05 24:00:01"},{"yyyy-MM-dd HH","2024-01-05 10"},{"yyyy-MM-dd","2024-01-32"},{"yyyy-MM-dd HH:mm","2024-01-05 10:60"},{"yyyy-MMM-dd","2024-Jan-05"},{"yyyy-MMM-dd","2024-Sep-31"},{"yyyy-MMMM-dd","2024-Sep-05"},{"yyyy-MMMM-dd","2024-September-05"},{"dd MMM yyyy HH:mm","05 Dec 2024 10:20"}};
for (String[] c : cases) { DateTimeFormatter f = DateTimeFormatter.ofPattern(c[0], Locale.ROOT); String r; try { r = LocalDateTime.parse(c[1], f).toString(); } catch (DateTimeParseException e) { try { r = LocalDateTime.of(LocalDate.parse(c[1], f), LocalTime.MIDNIGHT).toString(); } catch (Exception e2) { r = "ERR " + e2.getMessage(); } } System.out.println(c[0] + " | " + c[1] + " -> " + r); }
for (String p : new String[]{"yyyy#MM", "yyyy-MM-ddd", "yyyy-MM-dd HHH", "yyyy-MM-dd HH:mmm", "yyyy-MM-dd HH:mm:sss", "yyyy-MMMMMM-dd", "yyyy-MM-dd SSSSSSSSSS"}) { try { DateTimeFormatter.ofPattern(p, Locale.ROOT); System.out.println("ofPattern " + p + " -> ok"); } catch (Exception e) { System.out.println("ofPattern " + p + " -> " + e.getMessage()); } }
/exit
