"""CRC-32 of a byte string, table-driven, the table built with shifts and xors in a list."""


def crc32_bytes(data):
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
        table.append(c)
    crc = 0xFFFFFFFF
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def setup(small=False):
    import random

    rng = random.Random(308)
    return (bytes(rng.randrange(256) for _ in range(64 if small else 50000)),)
