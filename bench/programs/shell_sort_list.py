"""Shell sort with Ciura's gap sequence on a Python list of floats, in place."""


def shell_sort_list(values):
    gaps = [701, 301, 132, 57, 23, 10, 4, 1]
    n = len(values)
    for gap in gaps:
        for i in range(gap, n):
            temp = values[i]
            j = i
            while j >= gap and values[j - gap] > temp:
                values[j] = values[j - gap]
                j -= gap
            values[j] = temp
    return values


def setup(small=False):
    n = 15 if small else 20_000
    return ([((k * 7919) % 10007) / 10007.0 for k in range(n)],)
