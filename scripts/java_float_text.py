"""Record Java's ``Double.toString`` / ``Float.toString`` for a spread of values (the JDK on PATH).

Writes ``tests/connectors/java_float_text.json``: per value its IEEE bits, the kind (``d`` double,
``f`` float) and the JDK's text; ``tests/connectors/test_float_text.py`` checks
:func:`streamsql.core.float_text.java_float_text` against it. Flink writes FLOAT and
DOUBLE with these methods (Jackson's ``NumberOutput``, ``Row.toString``, CAST to STRING), on the
JDK it runs on: Flink 2.3's oracle here runs JDK 17 (``java -version``), whose text is not always the
shortest (JDK 19+ changed it); the file records the JDK version.

The values: a seeded sample of decimals of every magnitude, random bit patterns, whole numbers
around ``2**24`` / ``2**53`` / ``2**63``, the plain-range bounds ``1e-3`` / ``1e7``, powers of two
and subnormals. Run::

    python scripts/java_float_text.py
"""

from __future__ import annotations

import json
import random
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "connectors" / "java_float_text.json"

JAVA = r"""
import java.io.*;
public class JT {
  public static void main(String[] a) throws Exception {
    BufferedReader r = new BufferedReader(new InputStreamReader(System.in));
    PrintWriter w = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out)));
    String l;
    while ((l = r.readLine()) != null) {
      long bits = Long.parseUnsignedLong(l.substring(2), 16);
      if (l.charAt(0) == 'd') w.println(Double.toString(Double.longBitsToDouble(bits)));
      else w.println(Float.toString(Float.intBitsToFloat((int) bits)));
    }
    w.flush();
  }
}
"""


def _values() -> list[tuple[str, int]]:
    rnd = random.Random(20261202)
    def d(x: float) -> tuple[str, int]:
        return "d", struct.unpack("<Q", struct.pack("<d", x))[0]

    def f(x: float) -> tuple[str, int]:
        x = x if abs(x) <= 3.4028234663852886e38 else 3.4028234663852886e38  # the largest float
        return "f", struct.unpack("<I", struct.pack("<f", x))[0]

    out = []
    for _ in range(1500):  # decimals of every magnitude, as data holds them
        x = round(rnd.uniform(-1, 1) * 10 ** rnd.randint(0, 9), rnd.randint(0, 6)) / 10 ** rnd.randint(0, 12)
        out += [d(x), f(x)]
    out += [("d", rnd.getrandbits(64)) for _ in range(1500)]
    out += [("f", rnd.getrandbits(32)) for _ in range(1500)]
    for base in (2**24, 2**53, 2**63, 1e7, 1e15, 1e18):
        for k in range(-3, 4):
            out += [d(float(base) + k * (2 if base >= 2**53 else 1)), f(float(base) + k)]
    for _ in range(300):  # whole numbers up to 2**63
        x = float(rnd.randint(2**20, 2**63))
        out += [d(x), f(x)]
    for x in (1e-3, 0.00099999, 9999999.0, 9999999.999, 1e7, 1e-4, 0.1, 0.2, 0.3, 1 / 3, 2 / 3, 100.0, 1e20,
              1e21,
              1e22, 1e-7, 123456789.123, 1.7e18, 1700000000123.0, 1.5e10, 1.1e10, 3.4028235e38, 1.4e-45,
              5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, -0.5, -1e-10, -12345.678):
        out += [d(x), f(x)]
    for e in range(-60, 70):
        out += [d(2.0**e), f(2.0**e)]
    out += [("d", m) for m in range(1, 40)] + [("f", m) for m in range(1, 40)]
    return out


def main() -> int:
    """Run the JDK over the values and write :data:`OUT`."""
    values = _values()
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "JT.java"
        src.write_text(JAVA)
        text = "".join(f"{k}:{b:x}\n" for k, b in values)
        run = subprocess.run(["java", str(src)], input=text, capture_output=True, text=True, check=True)
        got = run.stdout
    version = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0]
    rows = [[k, f"{b:x}", t] for (k, b), t in zip(values, got.splitlines())]
    lines = ",\n".join(json.dumps(r) for r in rows)
    OUT.write_text(f'{{"jdk": {json.dumps(version)},\n"values": [\n{lines}\n]}}\n')
    print(f"wrote {OUT}: {len(rows)} values, {version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
