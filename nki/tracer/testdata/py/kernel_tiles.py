from dataclasses import dataclass
import math
PMAX = 128
PSUM_FMAX = 512
SBUF_BYTES = 192 * 1024
DTYPE_BYTES = {"bfloat16": 2, "float32": 4, "float8": 1}
@dataclass(frozen=True)
class MatmulConfig:
    M: int
    K: int
    N: int
    dtype: str = "bfloat16"
    @property
    def tiles(self):
        return math.ceil(self.M / PMAX), math.ceil(self.K / PMAX), math.ceil(self.N / PSUM_FMAX)
    def sbuf_bytes(self, block_n=1):
        b = DTYPE_BYTES[self.dtype]
        return PMAX * PMAX * b + PMAX * PSUM_FMAX * block_n * b
    def fits(self, block_n):
        return self.sbuf_bytes(block_n) <= SBUF_BYTES
def best_block(cfg):
    best = 1
    for bn in (1, 2, 4, 8, 16):
        if cfg.fits(bn) and cfg.tiles[2] % bn == 0:
            best = bn
    return best
for shape in [(4096, 8192, 8192), (128, 512, 512), (300, 200, 1000)]:
    cfg = MatmulConfig(*shape)
    print(cfg, cfg.tiles, best_block(cfg), cfg.sbuf_bytes(best_block(cfg)))
def schedule(cfg):
    tm, tk, tn = cfg.tiles
    order = []
    for m in range(tm):
        for n in range(tn):
            order.append((m, n, [(k, (m * tk + k) % 3) for k in range(tk)]))
    return order
s = schedule(MatmulConfig(256, 384, 1024))
print(len(s), s[0], s[-1][2][-1])
masks = [[(p + 32 * t) < 100 for p in range(0, 128, 32)] for t in range(4)]
print(masks, sum(map(sum, masks)))
