s = "naïve café — 日本 😀"
print(len(s), s.upper(), s.title(), s.split(), s.encode if False else "no-bytes", s[6:10], s[-1], s.find("日"), s.index("😀"))
print(sorted(["é", "e", "f", "É", "z"]), "é" > "z", max("αβγ"), ord("😀"), chr(233), "ß".lower(), "ǆ".title())
print(repr("日本"), ascii("日本"), "{:^9}".format("日本"), f"{'é':*>4}", "%5s|" % "é", "ab😀c"[::-1], "x".join("日本"))
print("İstanbul".lower() == "i̇stanbul", "straße".upper(), "ﬁne".upper(), " ".isspace(), "\u00a0".isspace(), "٣".isdigit(), int("٣"))
