class Conf:
    level = 1
    tags = []
    def bump(self):
        self.level += 1
        return self.level
c1, c2 = Conf(), Conf()
print(c1.bump(), c1.bump(), c2.level, Conf.level, "level" in vars(c1), "level" in vars(c2))
c1.tags.append("shared")
c2.tags = ["own"]
print(Conf.tags, c1.tags, c2.tags)
Conf.level = 10
print(c1.level, c2.level, Conf().level)
del c1.level
print(c1.level)
class Desc(Conf):
    level = 100
print(Desc().level, Desc().bump(), Conf.level, Desc.tags is Conf.tags)
