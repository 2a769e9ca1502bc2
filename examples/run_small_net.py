"""Run examples/small_net.xml on a random image with irpool, and check the file first."""
import pathlib

import numpy as np

import irpool

net = pathlib.Path(__file__).with_name("small_net.xml")
report = irpool.check(net)
print("check:", "ok" if report.ok else "errors", *map(str, report.findings), sep="\n  ")
image = np.random.default_rng(0).standard_normal((1, 4, 16, 16)).astype(np.float32)
for name, array in irpool.run(net, {"image": image}).items():
    print(f"{name}: {array.dtype} {list(array.shape)}")
