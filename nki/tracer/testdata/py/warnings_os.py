import warnings
import os
import os.path
warnings.warn("this goes to the warnings log, not stdout")
warnings.warn("deprecated", DeprecationWarning)
print("after warnings")
print(os.path.join("a", "b", "c.py"), os.path.basename("/x/y/z.txt"), os.path.dirname("/x/y/z.txt"), os.path.splitext("k.tar.gz"))
print(os.path.join("/abs", "/root", "f"), os.path.split("a/b/c"), os.path.join("dir/", "f"), os.sep)
print(os.environ.get("NARWHAL_TEST_UNSET_VAR", "unset"), os.getenv("NARWHAL_TEST_UNSET_VAR") is None)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    warnings.warn("suppressed")
print("done")
