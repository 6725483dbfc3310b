class Res:
    def __enter__(self):
        print("acquire")
        return self
    def __exit__(self, *exc):
        print("release", exc[0].__name__ if exc[0] else None)
        return False
with Res():
    print("working")
with Res() as r:
    r.missing_method()
