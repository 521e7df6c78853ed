"""The index detector: a small fully convolutional network (PyTorch, for training only).

Input: a BGR image scaled to [0, 1], any size divisible by 16. Output, at a quarter of the
input's resolution, 26 channels: the index heat map (logit), 14 rank logits, 6 suit logits, the
index's log height and log width in output cells, and the sine and cosine of its up direction.

A ResNet-like encoder to 1/16 (a receptive field of about 130 px, more than the largest index
it is taught), then a feature pyramid back to 1/4, where neighbouring cards' indices in a fan
(a dozen pixels apart) still fall in separate cells. Plain 3x3 convolutions, batch norm (folded
into the convolutions on export), ReLU, nearest-neighbour upsampling and additions: operators
that OpenCV's DNN module has run since long before Raspberry Pi OS's OpenCV 4.6.
"""

from __future__ import annotations

import torch
from torch import nn

from vision.training.targets import RANKS, SUITS

HEADS = 1 + len(RANKS) + len(SUITS) + 4


def conv_bn(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Block(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.a = conv_bn(channels, channels)
        self.b = nn.Sequential(nn.Conv2d(channels, channels, 3, 1, 1, bias=False), nn.BatchNorm2d(channels))
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.relu(x + self.b(self.a(x)))


class IndexNet(nn.Module):
    def __init__(self, width: int = 32) -> None:
        super().__init__()
        w = width
        self.s4 = nn.Sequential(conv_bn(3, w // 2, 2), conv_bn(w // 2, w, 2), Block(w))
        self.s8 = nn.Sequential(conv_bn(w, 2 * w, 2), Block(2 * w), Block(2 * w))
        self.s16 = nn.Sequential(conv_bn(2 * w, 3 * w, 2), Block(3 * w), Block(3 * w))
        self.lat16 = nn.Conv2d(3 * w, 2 * w, 1)
        self.merge8 = conv_bn(2 * w, 2 * w)
        self.lat8 = nn.Conv2d(2 * w, w, 1)
        self.lat4 = nn.Conv2d(w, w, 1)
        self.merge4 = conv_bn(w, w)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.head = nn.Conv2d(w, HEADS, 1)
        nn.init.constant_(self.head.bias[:1], -2.19)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f4 = self.s4(x)
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        p8 = self.merge8(self.up(self.lat16(f16)) + f8)
        p4 = self.merge4(self.up(self.lat8(p8)) + self.lat4(f4))
        return self.head(p4)
