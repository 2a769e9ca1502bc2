"""Write examples/torch_pools.xml and .bin: a small torch model with the whole pooling family, converted and saved
by OpenVINO (MaxPool, AdaptiveAvgPool, AdaptiveMaxPool, and the ReduceMean/ReduceMax of global pooling).
Needs torch and openvino: python examples/make_torch_pools.py"""
import pathlib

import openvino as ov
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv, self.pool = torch.nn.Conv2d(3, 4, 3), torch.nn.MaxPool2d(3, 2, ceil_mode=True)
        self.bins, self.grid, self.head = (torch.nn.AdaptiveAvgPool2d((5, 7)), torch.nn.AdaptiveMaxPool2d((3, 3)),
                                           torch.nn.AdaptiveAvgPool2d(1))

    def forward(self, x):
        y = self.grid(self.bins(self.pool(torch.relu(self.conv(x)))))
        return self.head(y), torch.amax(y, dim=(2, 3))


if __name__ == "__main__":
    model = ov.convert_model(Net().eval(), example_input=torch.zeros(1, 3, 32, 30),
                             input=[ov.PartialShape([1, 3, 32, 30])])
    ov.save_model(model, pathlib.Path(__file__).with_name("torch_pools.xml"), compress_to_fp16=False)
