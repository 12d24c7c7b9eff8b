"""RC4: key scheduling and keystream XOR over a list of byte values (Pythran test style)."""


def rc4_keystream(key, data):
    s = list(range(256))
    j = 0
    for i in range(256):
        j = (j + s[i] + key[i % len(key)]) % 256
        s[i], s[j] = s[j], s[i]
    out = []
    i = j = 0
    for byte in data:
        i = (i + 1) % 256
        j = (j + s[i]) % 256
        s[i], s[j] = s[j], s[i]
        out.append(byte ^ s[(s[i] + s[j]) % 256])
    return out


def setup(small=False):
    key = [ord(c) for c in "Secret key 42"]
    n = 40 if small else 60_000
    data = [(7 * k + 13) % 256 for k in range(n)]
    return key, data
