"""The model zoo's architectures: real torchvision and torch.nn networks with seeded random weights.

Each entry builds a module and an example input; `export(name, directory)` writes
`<name>.onnx` (torch.onnx.export), `inputs/<input>.npy` and `expected/<output>.npy` (torch's own
outputs). Debian's python3-torch (1.13) and python3-torchvision (0.14).
"""
import math
import shutil
import sys
from pathlib import Path

import numpy as np
import torch
import torchvision
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
from gpt_kv import KvBlock  # noqa: E402


class Gpt(nn.Module):
    """A GPT-style decoder: token and position embeddings, pre-norm blocks with a causal mask."""

    def __init__(self, vocab=512, seq=128, dim=256, heads=4, layers=4):
        super().__init__()
        self.tokens = nn.Embedding(vocab, dim)
        self.positions = nn.Parameter(torch.randn(1, seq, dim) * 0.02)
        self.blocks = nn.ModuleList(GptBlock(dim, heads) for _ in range(layers))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1))

    def forward(self, ids):
        x = self.tokens(ids) + self.positions
        for block in self.blocks:
            x = block(x, self.mask)
        return self.head(self.norm(x))


class GptBlock(KvBlock):
    """The KV-cache decoder's block (examples/gpt_kv.py) without a cache: a causal mask instead."""

    def forward(self, x, mask):
        b, s, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(d, dim=2)
        q, k, v = (t.reshape(b, s, self.heads, d // self.heads).transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(2, 3) / math.sqrt(d // self.heads) + mask
        attention = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, s, d)
        x = x + self.proj(attention)
        return x + self.mlp(self.norm2(x))


class Bert(nn.Module):
    """A BERT-style encoder: post-norm nn.TransformerEncoder layers over embedded tokens."""

    def __init__(self, vocab=1024, seq=128, dim=256, heads=4, layers=4):
        super().__init__()
        self.tokens = nn.Embedding(vocab, dim)
        self.positions = nn.Parameter(torch.randn(1, seq, dim) * 0.02)
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.0, activation="gelu", batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.pooler = nn.Linear(dim, dim)

    def forward(self, ids):
        x = self.encoder(self.tokens(ids) + self.positions)
        return torch.tanh(self.pooler(x[:, 0]))


class LstmTagger(nn.Module):
    """A sequence tagger: embeddings, a 2-layer bidirectional LSTM, a linear classifier per token."""

    def __init__(self, vocab=1000, dim=128, hidden=128, tags=17):
        super().__init__()
        self.embedding = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, hidden, num_layers=2, bidirectional=True, batch_first=True)
        self.classifier = nn.Linear(2 * hidden, tags)

    def forward(self, ids):
        states, _ = self.lstm(self.embedding(ids))
        return self.classifier(states).log_softmax(-1)


class GruTagger(nn.Module):
    """A GRU over feature frames (speech-style), classified per frame."""

    def __init__(self, features=80, hidden=192, classes=32):
        super().__init__()
        self.gru = nn.GRU(features, hidden, num_layers=2, batch_first=True)
        self.classifier = nn.Linear(hidden, classes)

    def forward(self, frames):
        states, _ = self.gru(frames)
        return self.classifier(states)


class PreluCnn(nn.Module):
    """A small CNN with PReLU activations (per channel and shared)."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.PReLU(32),
            nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.PReLU(),
            nn.Conv2d(64, 64, 3, padding=1, groups=64), nn.PReLU(64),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))

    def forward(self, x):
        return self.features(x)


class DetectionHead(nn.Module):
    """A single-shot detector: a small CNN predicts box offsets and class scores per anchor on
    an 8x8 grid; every anchor's best class goes through per-class NMS (torchvision's
    batched_nms, exported as NonMaxSuppression), and the kept boxes, scores and labels come out
    in score order, as many as survive."""

    def __init__(self, classes=4, anchors=3, grid=8):
        super().__init__()
        self.classes, self.anchors = classes, anchors
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.ReLU())
        self.head = nn.Conv2d(32, anchors * (4 + classes), 1)
        centers = (torch.arange(grid) + 0.5) * 8
        cy, cx = torch.meshgrid(centers, centers, indexing="ij")
        sizes = torch.tensor([8.0, 16.0, 24.0])[:anchors]
        half = sizes.view(1, 1, anchors) / 2
        corners = [cx[..., None] - half, cy[..., None] - half, cx[..., None] + half, cy[..., None] + half]
        self.register_buffer("priors", torch.stack([c.expand(grid, grid, anchors) for c in corners], -1).reshape(-1, 4))

    def forward(self, x):
        p = self.head(self.backbone(x))  # [1, A * (4 + C), 8, 8]
        p = p.reshape(self.anchors, 4 + self.classes, -1).permute(2, 0, 1).reshape(-1, 4 + self.classes)
        boxes = self.priors + 4 * torch.tanh(p[:, :4])
        scores, labels = p[:, 4:].sigmoid().max(1)
        keep = torchvision.ops.batched_nms(boxes, scores, labels, 0.5)
        return boxes[keep], scores[keep], labels[keep]


class ShiftedWindowBlock(nn.Module):
    """A Swin-style block: cyclic shift, window partition, windowed attention with a relative
    position bias indexed through Mod, window merge and reverse shift."""

    def __init__(self, size=28, dim=96, heads=3, window=7):
        super().__init__()
        self.size, self.dim, self.heads, self.window = size, dim, heads, window
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.bias_table = nn.Parameter(torch.randn((2 * window - 1) ** 2, heads) * 0.02)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def relative_index(self):
        w = self.window
        taps = torch.arange(w * w)
        # Row and column of each tap: the exported graph computes them with Div and Mod.
        rows, cols = torch.div(taps, w, rounding_mode="floor"), torch.remainder(taps, w)
        dr = rows[:, None] - rows[None, :] + w - 1
        dc = cols[:, None] - cols[None, :] + w - 1
        return dr * (2 * w - 1) + dc

    def forward(self, x):
        b, n, c = x.shape
        s, w, h = self.size, self.window, self.heads
        shortcut = x
        x = self.norm1(x).reshape(b, s, s, c)
        x = torch.roll(x, shifts=(-(w // 2), -(w // 2)), dims=(1, 2))
        x = x.reshape(b, s // w, w, s // w, w, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, w * w, c)
        q, k, v = self.qkv(x).reshape(-1, w * w, 3, h, c // h).permute(2, 0, 3, 1, 4)
        bias = self.bias_table[self.relative_index().reshape(-1)].reshape(w * w, w * w, h).permute(2, 0, 1)
        attention = ((q @ k.transpose(-2, -1)) / math.sqrt(c // h) + bias).softmax(-1)
        x = (attention @ v).transpose(1, 2).reshape(-1, w * w, c)
        x = self.proj(x).reshape(b, s // w, s // w, w, w, c).permute(0, 1, 3, 2, 4, 5).reshape(b, s, s, c)
        x = torch.roll(x, shifts=(w // 2, w // 2), dims=(1, 2)).reshape(b, n, c)
        x = shortcut + x
        return x + self.mlp(self.norm2(x))


def _vision(factory, **kwargs):
    def build():
        return getattr(torchvision.models, factory)(weights=None, **kwargs), {"x": torch.randn(1, 3, 224, 224)}
    return build


def _vit():
    from torchvision.models import VisionTransformer
    model = VisionTransformer(image_size=224, patch_size=16, num_layers=2, num_heads=12, hidden_dim=768, mlp_dim=3072)
    return model, {"x": torch.randn(1, 3, 224, 224)}


def _tokens(model, vocab, seq):
    return lambda: (model, {"ids": torch.randint(0, vocab, (1, seq))})


# name -> (builder, what it is). The first eight are the zoo the issue tracker asks for.
MODELS = {
    "resnet18": (_vision("resnet18"), "torchvision ResNet-18, 1x3x224x224"),
    "resnet50": (_vision("resnet50"), "torchvision ResNet-50, 1x3x224x224"),
    "mobilenet_v2": (_vision("mobilenet_v2"), "torchvision MobileNetV2, 1x3x224x224"),
    "squeezenet1_1": (_vision("squeezenet1_1"), "torchvision SqueezeNet 1.1, 1x3x224x224"),
    "vit_2layer": (_vit, "torchvision ViT-B/16 with 2 layers, 1x3x224x224"),
    "bert_encoder": (lambda: _tokens(Bert(), 1024, 128)(), "BERT-style encoder, 4 layers, d 256, seq 128"),
    "gpt_decoder": (lambda: _tokens(Gpt(), 512, 128)(), "GPT-style decoder, causal mask, 4 layers, d 256, seq 128"),
    "lstm_tagger": (lambda: _tokens(LstmTagger(), 1000, 32)(), "2-layer bidirectional LSTM tagger, seq 32"),
    "gru_frames": (lambda: (GruTagger(), {"frames": torch.randn(1, 50, 80)}), "2-layer GRU over 50 frames"),
    "prelu_cnn": (lambda: (PreluCnn(), {"x": torch.randn(1, 3, 64, 64)}), "CNN with PReLU, 1x3x64x64"),
    "swin_block": (lambda: (ShiftedWindowBlock(), {"x": torch.randn(1, 28 * 28, 96)}),
                   "Swin-style shifted-window block (Mod), 28x28x96"),
    "mobilenet_v3_small": (_vision("mobilenet_v3_small"), "torchvision MobileNetV3-Small, 1x3x224x224"),
    "efficientnet_b0": (_vision("efficientnet_b0"), "torchvision EfficientNet-B0, 1x3x224x224"),
    "detection_head": (lambda: (DetectionHead(), {"x": torch.randn(1, 3, 64, 64)}),
                       "single-shot detector head with per-class NMS, 1x3x64x64"),
}


def export(name, directory, opset=13):
    """Writes the model, its inputs and torch's outputs under directory/name; returns the model path."""
    root = Path(directory) / name
    model_path = root / f"{name}.onnx"
    done = root / "exported"  # written last: a half-finished export is redone
    if done.is_file():
        return model_path
    torch.manual_seed(0)
    builder, _ = MODELS[name]
    module, inputs = builder()
    module.eval()
    for parameter in module.parameters():  # random weights of sane scale keep activations finite
        if parameter.dim() > 1:
            nn.init.kaiming_uniform_(parameter, a=math.sqrt(5))
    for buffer_name, buffer in module.named_buffers():
        if buffer_name.endswith("running_var"):
            buffer.uniform_(0.5, 1.5)
        elif buffer_name.endswith("running_mean"):
            buffer.uniform_(-0.1, 0.1)
    (root / "inputs").mkdir(parents=True, exist_ok=True)
    (root / "expected").mkdir(exist_ok=True)
    with torch.no_grad():
        outputs = module(*inputs.values())
    if not isinstance(outputs, (tuple, list)):
        outputs = (outputs,)
    output_names = [f"y{i}" if len(outputs) > 1 else "y" for i in range(len(outputs))]
    # Traced with gradients enabled: torch's attention fast path (a fused op ONNX has no form
    # of) is taken only without them; the exported graph is the same plain math.
    torch.onnx.export(module, tuple(inputs.values()), str(model_path), input_names=list(inputs),
                      output_names=output_names, opset_version=opset, do_constant_folding=True)
    for key, value in inputs.items():
        np.save(root / "inputs" / f"{key}.npy", value.numpy())
    for key, value in zip(output_names, outputs):
        np.save(root / "expected" / f"{key}.npy", value.numpy())
    done.write_text(f"torch {torch.__version__}, opset {opset}\n")
    return model_path


def calibration_sets(model_path, count=8, seed=1000, uniform=False):
    """int8 calibration samples for an exported model (`--calibrate-inputs`): `count`
    subdirectories of seeded inputs beside its own, each drawn like them but independently:
    floats standard normal (or, with `uniform`, uniform in [-1, 1) as `npusim run --seed` draws
    them), integers (token ids) the model's own input shuffled, so every id stays valid. Returns
    the directory; kept, like the export, until the model is exported again."""
    root = Path(model_path).parent
    directory = root / f"calibration.{'uniform' if uniform else 'normal'}.{count}.{seed}"
    done = directory / "complete"
    if done.is_file():
        return directory
    shutil.rmtree(directory, ignore_errors=True)
    for i in range(count):
        sample = directory / f"sample{i:02d}"
        sample.mkdir(parents=True)
        rng = np.random.RandomState(seed + i)
        for path in sorted((root / "inputs").glob("*.npy")):
            given = np.load(path)
            if np.issubdtype(given.dtype, np.integer):
                values = rng.permutation(given.ravel()).reshape(given.shape)
            elif uniform:
                values = rng.uniform(-1, 1, given.shape)
            else:
                values = rng.standard_normal(given.shape)
            np.save(sample / path.name, values.astype(given.dtype))
    done.write_text(f"{count} samples from seed {seed}\n")
    return directory
