"""A Vec3 class with operator overloading (+, -, *, dot) used to bounce rays off spheres."""

import math


class Vec3:
    def __init__(self, x, y, z):
        self.x, self.y, self.z = x, y, z

    def __add__(self, o):
        return Vec3(self.x + o.x, self.y + o.y, self.z + o.z)

    def __sub__(self, o):
        return Vec3(self.x - o.x, self.y - o.y, self.z - o.z)

    def __mul__(self, s):
        return Vec3(self.x * s, self.y * s, self.z * s)

    def dot(self, o):
        return self.x * o.x + self.y * o.y + self.z * o.z


def hit(origin, direction, centre, radius):
    oc = origin - centre
    b = oc.dot(direction)
    c = oc.dot(oc) - radius * radius
    disc = b * b - c
    if disc < 0:
        return -1.0
    return -b - math.sqrt(disc)


def vec3_class_ops(width, height):
    centre = Vec3(0.0, 0.0, -3.0)
    eye = Vec3(0.0, 0.0, 0.0)
    shade = 0.0
    for j in range(height):
        for i in range(width):
            d = Vec3((i - width / 2) / width, (j - height / 2) / height, -1.0)
            d = d * (1.0 / math.sqrt(d.dot(d)))
            t = hit(eye, d, centre, 1.0)
            if t > 0:
                normal = (eye + d * t) - centre
                shade += max(0.0, normal.dot(Vec3(0.57, 0.57, 0.57)))
    return shade


def setup(small=False):
    return (6, 4) if small else (120, 90)
