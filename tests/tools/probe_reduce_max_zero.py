"""Which zero the CPU plugin keeps in a global ReduceMax whose maximum is a tie of -0.0 and +0.0, alone (planar
layout) and after a convolution (channels-last): counts of tied windows that match the first zero, the last zero
(row-major) and +0.0. Prints for the machine it runs on (docs/exactness.md gives one run). Not a test."""
import numpy as np
import openvino as ov
import openvino.opset1 as o1
rng = np.random.default_rng(0)
core = ov.Core()
def model(shape, conv):
    p = o1.parameter(list(shape), np.float32, name="x")
    src = p
    if conv:   # a 1x1 convolution with identity weights: the plugin runs the reduce channels-last after it
        C = shape[1]
        w = o1.constant(np.eye(C, dtype=np.float32).reshape(C, C, 1, 1))
        src = o1.convolution(p, w, [1, 1], [0, 0], [0, 0], [1, 1])
    axes = o1.constant(np.arange(2, len(shape), dtype=np.int64))
    r = o1.reduce_max(src, axes, True)
    return core.compile_model(ov.Model([r], [p]), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
for shape in [(1, 16, 2, 2), (1, 512, 2, 2), (1, 64, 3, 3), (1, 17, 7, 7), (1, 32, 5, 7), (1, 3, 4, 4)]:
    for conv in (False, True):
        cm = model(shape, conv)
        same_first = same_plus = same_last = total = 0
        for trial in range(20):
            x = np.where(rng.random(shape) < 0.5, np.float32(-0.0), np.float32(0.0)).astype(np.float32)
            x[rng.random(shape) < 0.3] = -1.0
            y = cm([x])[cm.outputs[0]].reshape(shape[0], shape[1])
            flat = x.reshape(shape[0], shape[1], -1)
            for c in range(shape[1]):
                row = flat[0, c]; z = row[row == 0]
                if len(z) == 0 or np.signbit(z).all() or (~np.signbit(z)).all():
                    continue   # untied
                total += 1
                s = np.signbit(y[0, c])
                same_first += s == np.signbit(z[0]); same_last += s == np.signbit(z[-1]); same_plus += (not s)
        print(shape, "after conv" if conv else "alone", f"tied windows {total}: first-zero {same_first}, last-zero {same_last}, +0 {same_plus}")
