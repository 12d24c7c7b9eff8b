"""Maximum nesting depth and mismatch position of a code list, a list used as a stack (append/pop)."""


def bracket_depth_stack(codes):
    stack = []
    deepest = 0
    for pos in range(len(codes)):
        c = codes[pos]
        if c > 0:
            stack.append(c)
            if len(stack) > deepest:
                deepest = len(stack)
        else:
            if not stack or stack.pop() != -c:
                return deepest, pos
    return deepest, -1 if not stack else len(codes)


def setup(small=False):
    n = 10 if small else 4000
    codes = []
    for i in range(n):
        k = 1 + i % 3
        codes += [k, 1, -1, -k] if i % 5 else [k, -k]
    return (codes,)
