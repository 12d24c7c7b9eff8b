"""The call-time layer: compiled functions, regions and their guard entries, the warm cache.

This is what runs on every call of a decorated function; it imports the compiler
(`astcompile.pipeline`) only on a cache miss.
"""
