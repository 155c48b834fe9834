"""A GPT-style decoder with a KV cache, as torch.onnx.export writes one with a past signature.

Inputs: input_ids and position_ids [batch, seq] (int64), attention_mask [batch, past + seq]
(int64, 1 where a position may be attended) and per layer past.<i>.key / past.<i>.value
[batch, heads, past, head dim]; outputs: logits [batch, seq, vocab] and present.<i>.key /
present.<i>.value [batch, heads, past + seq, head dim], the past with the new tokens' entries.

    gpt_kv.py OUT_DIR    writes OUT_DIR/gpt_kv_decoder.onnx (2 layers, d 128, 4 heads, vocab 512)

`export(..., past=False)` writes the other form exporters produce, a prefill graph: no past
inputs, the presents the prompt's own entries. The tests and benches import `build`, `export` and
`greedy` (torch's own generation).
"""
import math
import sys
import warnings
from pathlib import Path

import torch
from torch import nn


class KvBlock(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x, past_key, past_value, bias):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(d, dim=2)
        q, k, v = (z.reshape(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        if past_key is not None:
            k, v = torch.cat([past_key, k], 2), torch.cat([past_value, v], 2)
        scores = q @ k.transpose(2, 3) * (1.0 / math.sqrt(d // self.heads)) + bias
        attention = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(attention)
        return x + self.mlp(self.norm2(x)), k, v


class GptKv(nn.Module):
    def __init__(self, vocab, context, dim, heads, layers):
        super().__init__()
        self.tokens = nn.Embedding(vocab, dim)
        self.positions = nn.Embedding(context, dim)
        self.blocks = nn.ModuleList(KvBlock(dim, heads) for _ in range(layers))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, input_ids, position_ids, attention_mask, *past):
        x = self.tokens(input_ids) + self.positions(position_ids)
        t, p = input_ids.shape[1], past[0].shape[2] if past else 0
        # Causal over past + new positions, and the mask's empty slots hidden.
        query = torch.arange(t).unsqueeze(1) + p
        key = torch.arange(p + t).unsqueeze(0)
        keep = (key <= query).unsqueeze(0).unsqueeze(0) & (attention_mask > 0).unsqueeze(1).unsqueeze(2)
        bias = (1.0 - keep.float()) * -1e9
        presents = []
        for i, block in enumerate(self.blocks):
            x, k, v = block(x, *(past[2 * i:2 * i + 2] if past else (None, None)), bias)
            presents += [k, v]
        return (self.head(self.norm(x)), *presents)


def build(vocab=512, context=256, dim=128, heads=4, layers=2, seed=0):
    """The decoder with seeded random weights, in eval mode."""
    torch.manual_seed(seed)
    return GptKv(vocab, context, dim, heads, layers).eval()


def export(module, path, past=True):
    """Writes the module's past-KV signature to `path` (opset 13, dynamic batch, seq and past),
    or without `past` its prefill graph (no past inputs; mask and presents as long as the prompt)."""
    layers, heads = len(module.blocks), module.blocks[0].heads
    dim = module.tokens.embedding_dim
    names = [f"past.{i}.{kv}" for i in range(layers) for kv in ("key", "value")]
    outputs = ["logits"] + [f"present.{i}.{kv}" for i in range(layers) for kv in ("key", "value")]
    axes = {"input_ids": {0: "batch", 1: "seq"}, "position_ids": {0: "batch", 1: "seq"},
            "attention_mask": {0: "batch", 1: "total"}, "logits": {0: "batch", 1: "seq"}}
    axes.update({name: {0: "batch", 2: "past"} for name in names})
    axes.update({name: {0: "batch", 2: "total"} for name in outputs[1:]})
    t, p = 3, 5 if past else 0
    sample = (torch.zeros(1, t, dtype=torch.int64), torch.arange(p, p + t).unsqueeze(0),
              torch.ones(1, p + t, dtype=torch.int64), *[torch.zeros(1, heads, p, dim // heads) for _ in names if past])
    if not past:
        names = []
        axes["attention_mask"] = {0: "batch", 1: "seq"}
        axes.update({name: {0: "batch", 2: "seq"} for name in outputs[1:]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, sample, str(path), input_names=["input_ids", "position_ids", "attention_mask"] + names,
                          output_names=outputs, dynamic_axes=axes, opset_version=13, do_constant_folding=True)


def greedy(module, prompt, new_tokens):
    """torch's greedy generation with the module's own cache: the new tokens per sequence."""
    layers, heads = len(module.blocks), module.blocks[0].heads
    dim = module.tokens.embedding_dim
    ids = torch.tensor(prompt, dtype=torch.int64)
    batch = ids.shape[0]
    past = [torch.zeros(batch, heads, 0, dim // heads) for _ in range(2 * layers)]
    length, chosen = 0, []
    with torch.no_grad():
        for _ in range(new_tokens):
            t = ids.shape[1]
            positions = torch.arange(length, length + t).unsqueeze(0).expand(batch, t)
            logits, *past = module(ids, positions, torch.ones(batch, length + t, dtype=torch.int64), *past)
            length += t
            ids = logits[:, -1].argmax(-1, keepdim=True)
            chosen.append(ids)
    return torch.cat(chosen, 1).tolist()


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    export(build(), Path(sys.argv[1]) / "gpt_kv_decoder.onnx")


if __name__ == "__main__":
    main()
