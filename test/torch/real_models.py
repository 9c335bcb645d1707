"""Small versions of real PyTorch models, as their authors write them:
GPT-2 (causal mask from a tril buffer, tied LM head, cross-entropy with
ignore_index), a LLaMA-style block (RMSNorm, rotary embeddings, grouped-query
attention), a ResNet (BatchNorm in eval, max pooling, strided blocks,
adaptive average pooling), a ViT (patch convolution, class token,
nn.TransformerEncoderLayer), BERT (token-type embeddings, a padding mask), a
MobileNet (Hardswish, an inverted residual with a depthwise convolution,
Hardsigmoid), LeNet (average pooling, log_softmax), a U-Net step (nearest,
bilinear and transposed-convolution upsampling, skip concat) and a C3D-style
video classifier (3-D convolutions, BatchNorm3d, 3-D max pooling).

Imported by test_real_models.py (each against eager PyTorch) and run as a
script (`real_models.py DIR`) to write each model's global program and its
inputs for the MPI runs of real_models_mpi.test."""

import copy
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import dtensor_mlir as dm
from dtensor_mlir.torch import compile as dm_compile

S = dm.Shard


class Block(nn.Module):
    def __init__(self, c, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(c), nn.LayerNorm(c)
        self.attn, self.proj = nn.Linear(c, 3 * c), nn.Linear(c, c)
        self.fc, self.fc2 = nn.Linear(c, 4 * c), nn.Linear(4 * c, c)
        self.heads = heads
        self.register_buffer("bias", torch.tril(torch.ones(16, 16)).view(1, 1, 16, 16))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.attn(self.ln1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / (c // self.heads) ** 0.5)
        att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
        y = (F.softmax(att, dim=-1) @ v).transpose(1, 2).contiguous().view(b, t, c)
        x = x + self.proj(y)
        return x + self.fc2(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, vocab=64, c=32, heads=4, layers=2):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, c), nn.Embedding(16, c)
        self.h = nn.ModuleList([Block(c, heads) for _ in range(layers)])
        self.lnf = nn.LayerNorm(c)
        self.head = nn.Linear(c, vocab, bias=False)
        self.head.weight = self.wte.weight  # tied

    def forward(self, idx, targets):
        b, t = idx.shape
        pos = torch.arange(0, t, dtype=torch.long)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        logits = self.head(self.lnf(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)


def _rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class LlamaBlock(nn.Module):
    """A LLaMA-style attention block as Hugging Face writes it: RMSNorm,
    rotary embeddings (rotate_half), grouped-query attention (repeated k and
    v heads), causal scaled_dot_product_attention, no biases."""

    def __init__(self, c=32, heads=4, kv_heads=2):
        super().__init__()
        hd = c // heads
        self.q = nn.Linear(c, c, bias=False)
        self.k = nn.Linear(c, kv_heads * hd, bias=False)
        self.v = nn.Linear(c, kv_heads * hd, bias=False)
        self.o = nn.Linear(c, c, bias=False)
        self.norm = nn.Parameter(torch.ones(c))
        self.heads, self.kv_heads, self.hd = heads, kv_heads, hd
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd)))

    def forward(self, x):
        b, t, c = x.shape
        h = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.norm
        q = self.q(h).view(b, t, self.heads, self.hd).transpose(1, 2)
        k = self.k(h).view(b, t, self.kv_heads, self.hd).transpose(1, 2)
        v = self.v(h).view(b, t, self.kv_heads, self.hd).transpose(1, 2)
        freqs = torch.outer(torch.arange(t).float(), self.inv_freq)
        emb = torch.cat((freqs, freqs), -1)
        q = q * emb.cos() + _rotate_half(q) * emb.sin()
        k = k * emb.cos() + _rotate_half(k) * emb.sin()
        rep = self.heads // self.kv_heads
        k = k[:, :, None].expand(b, self.kv_heads, rep, t, self.hd).reshape(b, self.heads, t, self.hd)
        v = v[:, :, None].expand(b, self.kv_heads, rep, t, self.hd).reshape(b, self.heads, t, self.hd)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return x + self.o(y.transpose(1, 2).reshape(b, t, c))


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.down = (nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
                     if stride != 1 or cin != cout else nn.Identity())

    def forward(self, x):
        return F.relu(self.b2(self.c2(F.relu(self.b1(self.c1(x))))) + self.down(x))


class ResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 7, 2, 3, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        self.l1, self.l2 = BasicBlock(8, 8, 1), BasicBlock(8, 16, 2)
        self.pool, self.fc = nn.AdaptiveAvgPool2d(1), nn.Linear(16, 10)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.l2(self.l1(self.stem(x)))), 1))


class ViT(nn.Module):
    def __init__(self):
        super().__init__()
        self.patch = nn.Conv2d(3, 32, 4, 4)
        self.cls = nn.Parameter(torch.randn(1, 1, 32))
        self.pos = nn.Parameter(torch.randn(1, 17, 32))
        self.enc = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True, norm_first=True)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        return self.head(self.enc(x)[:, 0])


class Bert(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok, self.typ = nn.Embedding(50, 32), nn.Embedding(2, 32)
        self.ln = nn.LayerNorm(32)
        self.enc = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True, activation="gelu")
        self.pool = nn.Linear(32, 32)

    def forward(self, ids, types, mask):
        x = self.enc(self.ln(self.tok(ids) + self.typ(types)), src_key_padding_mask=mask)
        return torch.tanh(self.pool(x[:, 0]))


class UNetStep(nn.Module):
    def __init__(self):
        super().__init__()
        self.down, self.out = nn.Conv2d(3, 8, 3, padding=1), nn.Conv2d(32, 3, 1)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.up_learned = nn.ConvTranspose2d(8, 8, 2, stride=2)

    def forward(self, x):
        a = F.relu(self.down(x))
        p = F.max_pool2d(a, 2)
        smooth = F.interpolate(p, scale_factor=2, mode="bilinear")
        return self.out(torch.cat([a, self.up(p), self.up_learned(p), smooth], 1))


class InvertedResidual(nn.Module):
    """MobileNetV2's block: expand, depthwise 3x3, project, residual."""

    def __init__(self, c, expand=4):
        super().__init__()
        h = c * expand
        self.block = nn.Sequential(
            nn.Conv2d(c, h, 1, bias=False), nn.BatchNorm2d(h), nn.ReLU6(),
            nn.Conv2d(h, h, 3, padding=1, groups=h, bias=False), nn.BatchNorm2d(h), nn.ReLU6(),
            nn.Conv2d(h, c, 1, bias=False), nn.BatchNorm2d(c))

    def forward(self, x):
        return x + self.block(x)


class OpMix(nn.Module):
    """One of each op the importer lowers beyond the basics, so that the
    MPI run compiles them all to C++."""

    def __init__(self):
        super().__init__()
        self.gn = nn.GroupNorm(2, 4)

    def forward(self, img, x, idx):
        pooled = F.avg_pool2d(img, 3, 2, 1, count_include_pad=False) + F.max_pool2d(img, 3, 2, 1)
        normed = self.gn(F.pad(img, (1, 1), value=0.5))
        logic = torch.logical_and(x > 0, torch.logical_not(x > 1)).any(1)
        vals, pos = x.max(1)
        mixed = (torch.remainder(x * 3, 0.7) + torch.round(x * 2) + F.leaky_relu(x) + F.elu(x)
                 + torch.log1p(x.abs()) + torch.expm1(x.clamp(-1, 1)) + torch.log2(x.abs() + 1)
                 + torch.arange(6.0) * 0.5)
        more = (torch.cumsum(x, 1) + x.flip(1) + torch.atan(x) + torch.sinh(x)
                + torch.asin(x.clamp(-0.9, 0.9)) + x.std(1, keepdim=True) + x.prod(1, keepdim=True)
                + torch.index_select(x, 0, idx[:, 0]) + x[idx[:, 1]]
                + torch.div(x * 5, x.flip(0) + 3, rounding_mode="floor") + torch.fmod(x * 5, 0.7)
                + torch.roll(x, 2, 1) + torch.nan_to_num(x.log()) + (idx[:, :1] // -2))
        more = torch.cat([more, more.repeat(1, 2), torch.topk(x, 3).values], 1)
        return (pooled, normed, logic, vals, pos + x.argmin(1), torch.gather(x, 1, idx), mixed, more)


def _eval_bn(m):
    """Running statistics a trained network would have (not 0 and 1)."""
    g = torch.Generator().manual_seed(7)
    for mod in m.modules():
        if isinstance(mod, (nn.BatchNorm2d, nn.BatchNorm3d)):
            mod.running_mean.copy_(torch.rand(mod.num_features, generator=g) - 0.5)
            mod.running_var.copy_(torch.rand(mod.num_features, generator=g) + 0.5)
    return m.eval()


def _gpt_tp():
    pl = {}
    for i in range(2):
        pl.update({f"h.{i}.attn.weight": [S(0)], f"h.{i}.attn.bias": [S(0)],
                   f"h.{i}.proj.weight": [S(1)], f"h.{i}.fc.weight": [S(0)],
                   f"h.{i}.fc.bias": [S(0)], f"h.{i}.fc2.weight": [S(1)]})
    return pl


def models():
    """name -> (module, example inputs, placements): built afresh, seeded."""
    torch.manual_seed(0)
    ids = torch.randint(0, 64, (4, 8))
    targets = torch.randint(0, 64, (4, 8))
    targets[1, 3] = -1  # ignored
    mask = torch.zeros(2, 8, dtype=torch.bool)
    mask[1, 6:] = True
    mask4 = torch.zeros(4, 8, dtype=torch.bool)
    mask4[1, 6:] = mask4[3, 5:] = True
    mobilenet = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.BatchNorm2d(8), nn.Hardswish(),
                              InvertedResidual(8), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                              nn.Dropout(0.2), nn.Linear(8, 10), nn.Hardsigmoid())
    # C3D-style (video: N, C, T, H, W): 3-D convolutions, pooling space
    # before time, a strided grouped convolution, global pooling.
    c3d = nn.Sequential(nn.Conv3d(3, 8, 3, padding=1), nn.BatchNorm3d(8), nn.ReLU(),
                        nn.MaxPool3d((1, 2, 2)), nn.Conv3d(8, 8, 3, stride=2, padding=1, groups=2),
                        nn.BatchNorm3d(8), nn.ReLU(), nn.MaxPool3d(2, ceil_mode=True),
                        nn.AdaptiveAvgPool3d(1), nn.Flatten(), nn.Linear(8, 5))
    lenet = nn.Sequential(nn.Conv2d(1, 6, 5), nn.Tanh(), nn.AvgPool2d(2), nn.Conv2d(6, 16, 5), nn.Tanh(),
                          nn.AvgPool2d(2), nn.Flatten(), nn.Linear(256, 120), nn.Tanh(),
                          nn.Linear(120, 10), nn.LogSoftmax(-1))
    return {
        "gpt2_dp": (GPT().eval(), (ids, targets), {0: [S(0)], 1: [S(0)]}),
        "gpt2_tp": (GPT().eval(), (ids, targets), _gpt_tp()),
        "llama": (LlamaBlock(), (torch.randn(4, 8, 32),), {0: [S(0)]}),
        "resnet_dp": (_eval_bn(ResNet()), (torch.randn(4, 3, 32, 32),), {0: [S(0)]}),
        "resnet_h": (_eval_bn(ResNet()), (torch.randn(2, 3, 32, 32),), {0: [S(2)]}),
        "vit": (ViT().eval(), (torch.randn(4, 3, 16, 16),), {0: [S(0)]}),
        "bert": (Bert().eval(), (torch.randint(0, 50, (2, 8)), torch.randint(0, 2, (2, 8)), mask),
                 {0: [S(0)], 1: [S(0)], 2: [S(0)]}),
        "mobilenet": (_eval_bn(mobilenet), (torch.randn(4, 3, 16, 16),), {0: [S(0)]}),
        "lenet": (lenet.eval(), (torch.randn(4, 1, 28, 28),), {0: [S(0)]}),
        "c3d": (_eval_bn(c3d), (torch.randn(4, 3, 6, 12, 12),), {0: [S(0)]}),
        # The same sharded on time (halo exchanges between time slices).
        "c3d_t": (_eval_bn(copy.deepcopy(c3d)), (torch.randn(2, 3, 8, 12, 12),), {0: [S(2)]}),
        "unet_step": (UNetStep().eval(), (torch.randn(2, 3, 8, 8),), {0: [S(2)]}),
        "op_mix": (OpMix().eval(), (torch.randn(2, 4, 8, 8), torch.randn(8, 6),
                                    torch.randint(0, 6, (8, 3))), {0: [S(2)], 1: [S(0)]}),
        # As many sequences as ranks: every view of the batch stays sharded
        # (two on four ranks are uneven, and merging an uneven batch with
        # another dim cannot keep its shards).
        "bert_b4": (Bert().eval(), (torch.randint(0, 50, (4, 8)), torch.randint(0, 2, (4, 8)),
                                    mask4), {0: [S(0)], 1: [S(0)], 2: [S(0)]}),
    }


MESH = (4,)


def compile_model(name):
    module, args, placements = models()[name]
    return module, args, dm_compile(module, args, mesh=dm.DeviceMesh(MESH), placements=placements)


def step_loss(mod, *args):
    """The loss of a training step: the model's own (a scalar output), or
    the mean square of its output."""
    out = mod(*args)
    return out if out.dim() == 0 else out.pow(2).mean()


def training_step(name, freeze_batch_norm=False):
    """The model's training step (step_loss), data-parallel as `models()`
    places it; dropout off; batch norms train unless frozen (eval(), as
    fine-tuning does)."""
    from dtensor_mlir.torch import compile_training_step
    module, args, placements = models()[name]
    module.train()
    for m in module.modules():
        if isinstance(m, nn.Dropout):
            m.p = 0.0
        if freeze_batch_norm and isinstance(m, nn.BatchNorm2d):
            m.eval()
    return module, args, compile_training_step(module, step_loss, args, mesh=dm.DeviceMesh(MESH),
                                               placements=placements)


if __name__ == "__main__":
    # real_models.py DIR NAME...: DIR/NAME.mlir (the global program) and
    # DIR/NAME.flags (dtensor-run's --input flags for the model's inputs);
    # NAME:train for the model's training step.
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in sys.argv[2:]:
        if name.endswith(":train"):
            module, args, model = training_step(name[:-len(":train")])
            name = name.replace(":", "_")
        else:
            module, args, model = compile_model(name)
        with open(os.path.join(out, name + ".mlir"), "w") as f:
            f.write(model.mlir)
        flags = model.write_inputs(os.path.join(out, name + ".inputs"), *args)
        with open(os.path.join(out, name + ".flags"), "w") as f:
            f.write(" ".join(flags) + "\n")
        print(name, "written")
