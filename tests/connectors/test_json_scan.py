"""The JSON fast path's byte scans give the answers of the plain checks they replace.

``object_lines`` stands for ``join_lines`` + ``objects_only`` and ``has_constant`` for
``b"NaN" in data or b"Infinity" in data`` (connectors/formats/json.py); both scan in chunks, so
they are checked with chunks of a few bytes too, where a word or a separator straddles two.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
import streamsql.connectors.formats.json as J

ALPHABET = b'NaInfity {}\n\r\x00"a:, '


@pytest.mark.parametrize("chunk", [3, 7, J.SCAN_CHUNK])
def test_has_constant_is_the_substring_test(monkeypatch, chunk):
    monkeypatch.setattr(J, "SCAN_CHUNK", chunk)
    rng = random.Random(chunk)
    texts = [b"", b"NaN", b"Infinity", b"-Infinity", b"Infinit", b"NaX", b'{"a":1}', b"xxNaNxx", b"Na" * 5]
    texts += [bytes(rng.choice(ALPHABET) for _ in range(rng.randint(0, 24))) for _ in range(20_000)]
    for d in texts:
        assert J.has_constant(np.frombuffer(d, np.uint8)) == (b"NaN" in d or b"Infinity" in d), d


@pytest.mark.parametrize("chunk", [3, 7, J.SCAN_CHUNK])
def test_object_lines_is_join_lines_and_objects_only(monkeypatch, chunk):
    monkeypatch.setattr(J, "SCAN_CHUNK", chunk)
    rng = random.Random(chunk)
    batches = [[b'{"a":1}', b'{"a":2}'], [b'{"a":1}', b""], [b' {"a":1}'], [b'{"a":\n1}', b'{"b":2}'],
               [b'{"a":1}\r', b"{}"], [b'{"a":"\x00"}'], [b"[1]", b"{}"], [b"{}", b"{}\n"]]
    for _ in range(20_000):
        batches.append([bytes(rng.choice(ALPHABET) for _ in range(rng.randint(0, 8)))
                        for _ in range(rng.randint(1, 5))])
    for payloads in batches:
        got = J.object_lines(payloads)
        joined = J.join_lines(payloads)
        assert (got is not None) == J.objects_only(joined, payloads), payloads
        if got is not None:
            assert got[0] == joined and got[1].tobytes() == joined, payloads
