s = "  Hello, World!  "
print(repr(s.strip()), repr(s.lstrip()), repr(s.rstrip()), repr("xxhixx".strip("x")))
t = "a,b,,c"
print(t.split(","), t.split(",", 1), t.rsplit(",", 1), "a b  c ".split(), " a b c ".split(None, 1), "a b c".rsplit(None, 1))
print("-".join(["x", "y", "z"]), "".join([]), ", ".join(str(i) for i in range(4)))
print("hello".upper(), "HeLLo".lower(), "hello world".title(), "hello World".capitalize(), "AbC".swapcase())
print("abcabc".find("c"), "abcabc".rfind("c"), "abcabc".find("z"), "abcabc".index("b", 2), "abcabc".count("bc"))
print("hello".startswith("he"), "hello".endswith(("lo", "x")), "hello".startswith("l", 2), "x".replace("x", "yy"))
print("a-b-c".replace("-", "+", 1), "42".isdigit(), "4a".isdigit(), "abc".isalpha(), " \t".isspace(), "Ab1".isalnum())
print("7".zfill(3), "-7".zfill(4), "ab".ljust(5, "*"), "ab".rjust(5), "ab".center(7, "-"), "abc".center(6, "."))
print("key=value=x".partition("="), "key=value=x".rpartition("="), "none".partition("="))
print("l1\nl2\r\nl3".splitlines(), "l1\nl2\n".splitlines(True), "ABC".isupper(), "abc".islower(), "Title Case".istitle())
s2 = "héllo wörld"
print(len(s2), s2[1], s2[-1], s2[1:4], s2.upper(), s2.find("w"), s2[::-1])
print("abc"[0], "abc"[-1], "abcdef"[1:5:2], "abcdef"[::-2], "abc" * 3, 3 * "ab", "a" + "b", "b" in "abc")
print("x".join("abc"), "tab\there".expandtabs(4), "removeme".removeprefix("remove"), "file.py".removesuffix(".py"))
print(ord("A"), chr(65), chr(0x1F600) == "\U0001F600", "abc" < "abd", "Z" < "a", min("hello"), max("hello"))
print(str(12), str(1.5), str(None), str([1, "a"]), repr("it's"), repr('say "hi"'), repr("both ' and \""), repr("\n\t\\"))
