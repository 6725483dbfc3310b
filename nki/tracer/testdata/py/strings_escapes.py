print("tab\tend", 'single\'quote', "double\"quote", "back\\slash", "nl\\n literal")
print(r"raw\n\t", len("\x41\u00e9\U0001F600"), "\x41\u00e9", "\101\102", "a" "b" "c")
print(repr("\x00\x1f\x7f"), repr("é"), repr("\u200b"), repr("tab\t"), repr(""), repr("'"), repr('"'))
s = """triple
quoted"""
print(s, s.count("\n"), '''x''')
print("caf\u00e9".upper(), "ß".upper(), "İ".lower() == "i̇", "ǅ".isupper())
print(str(1e100), "%.3s" % "héllo", "{:^7}".format("é"), f"{'ü':>3}", len("日本語"), "日本語"[1], "日本語"[::-1])
