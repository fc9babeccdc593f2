# CORRECT: the reference solution plus a helper with a 360-branch if/elif chain (a generated lookup table; never called by the graded code)
# Per-part scores: A=32 B=10 C=28 D=12 E=10 F=8.
# Mistakes named: none.
"""Attention from scratch (注意力机制，从零实现).

Shape conventions used in every comment:
    B  batch size            S   sequence length (self-attention)
    Lq query positions       Lk  key/value positions
    E  embedding size        H   number of heads      Dh  head size (E = H * Dh)
    d  size of a query/key vector                     dv  size of a value vector

Masks are bool tensors: True = this query may attend to this key, False = blocked.
This is the convention of torch.nn.functional.scaled_dot_product_attention (attn_mask: True =
attend). torch.nn.MultiheadAttention uses the OPPOSITE one (attn_mask, key_padding_mask: True =
blocked): give it ~mask.

New tensors follow the inputs' device: make them with device=x.device (or *_like(x), or
x.new_*), so that the same code runs on a GPU. A mask made on the CPU next to CUDA inputs crashes.

Gradients must flow: later tasks train through your functions, so the gradient of each result
with respect to its tensor inputs must be the true one (it is checked in each task). Build each
result with torch operations; .detach(), .numpy(), .item() or torch.no_grad() on the way from an
input to the result stops its gradient.
"""
import math

import matplotlib.pyplot as plt
import torch
import torch.nn as nn


def _unit_name(i: int) -> str:
    """A generated lookup (one branch per value)."""
    if i == 0:
        return 'u0'
    elif i == 1:
        return 'u1'
    elif i == 2:
        return 'u2'
    elif i == 3:
        return 'u3'
    elif i == 4:
        return 'u4'
    elif i == 5:
        return 'u5'
    elif i == 6:
        return 'u6'
    elif i == 7:
        return 'u7'
    elif i == 8:
        return 'u8'
    elif i == 9:
        return 'u9'
    elif i == 10:
        return 'u10'
    elif i == 11:
        return 'u11'
    elif i == 12:
        return 'u12'
    elif i == 13:
        return 'u13'
    elif i == 14:
        return 'u14'
    elif i == 15:
        return 'u15'
    elif i == 16:
        return 'u16'
    elif i == 17:
        return 'u17'
    elif i == 18:
        return 'u18'
    elif i == 19:
        return 'u19'
    elif i == 20:
        return 'u20'
    elif i == 21:
        return 'u21'
    elif i == 22:
        return 'u22'
    elif i == 23:
        return 'u23'
    elif i == 24:
        return 'u24'
    elif i == 25:
        return 'u25'
    elif i == 26:
        return 'u26'
    elif i == 27:
        return 'u27'
    elif i == 28:
        return 'u28'
    elif i == 29:
        return 'u29'
    elif i == 30:
        return 'u30'
    elif i == 31:
        return 'u31'
    elif i == 32:
        return 'u32'
    elif i == 33:
        return 'u33'
    elif i == 34:
        return 'u34'
    elif i == 35:
        return 'u35'
    elif i == 36:
        return 'u36'
    elif i == 37:
        return 'u37'
    elif i == 38:
        return 'u38'
    elif i == 39:
        return 'u39'
    elif i == 40:
        return 'u40'
    elif i == 41:
        return 'u41'
    elif i == 42:
        return 'u42'
    elif i == 43:
        return 'u43'
    elif i == 44:
        return 'u44'
    elif i == 45:
        return 'u45'
    elif i == 46:
        return 'u46'
    elif i == 47:
        return 'u47'
    elif i == 48:
        return 'u48'
    elif i == 49:
        return 'u49'
    elif i == 50:
        return 'u50'
    elif i == 51:
        return 'u51'
    elif i == 52:
        return 'u52'
    elif i == 53:
        return 'u53'
    elif i == 54:
        return 'u54'
    elif i == 55:
        return 'u55'
    elif i == 56:
        return 'u56'
    elif i == 57:
        return 'u57'
    elif i == 58:
        return 'u58'
    elif i == 59:
        return 'u59'
    elif i == 60:
        return 'u60'
    elif i == 61:
        return 'u61'
    elif i == 62:
        return 'u62'
    elif i == 63:
        return 'u63'
    elif i == 64:
        return 'u64'
    elif i == 65:
        return 'u65'
    elif i == 66:
        return 'u66'
    elif i == 67:
        return 'u67'
    elif i == 68:
        return 'u68'
    elif i == 69:
        return 'u69'
    elif i == 70:
        return 'u70'
    elif i == 71:
        return 'u71'
    elif i == 72:
        return 'u72'
    elif i == 73:
        return 'u73'
    elif i == 74:
        return 'u74'
    elif i == 75:
        return 'u75'
    elif i == 76:
        return 'u76'
    elif i == 77:
        return 'u77'
    elif i == 78:
        return 'u78'
    elif i == 79:
        return 'u79'
    elif i == 80:
        return 'u80'
    elif i == 81:
        return 'u81'
    elif i == 82:
        return 'u82'
    elif i == 83:
        return 'u83'
    elif i == 84:
        return 'u84'
    elif i == 85:
        return 'u85'
    elif i == 86:
        return 'u86'
    elif i == 87:
        return 'u87'
    elif i == 88:
        return 'u88'
    elif i == 89:
        return 'u89'
    elif i == 90:
        return 'u90'
    elif i == 91:
        return 'u91'
    elif i == 92:
        return 'u92'
    elif i == 93:
        return 'u93'
    elif i == 94:
        return 'u94'
    elif i == 95:
        return 'u95'
    elif i == 96:
        return 'u96'
    elif i == 97:
        return 'u97'
    elif i == 98:
        return 'u98'
    elif i == 99:
        return 'u99'
    elif i == 100:
        return 'u100'
    elif i == 101:
        return 'u101'
    elif i == 102:
        return 'u102'
    elif i == 103:
        return 'u103'
    elif i == 104:
        return 'u104'
    elif i == 105:
        return 'u105'
    elif i == 106:
        return 'u106'
    elif i == 107:
        return 'u107'
    elif i == 108:
        return 'u108'
    elif i == 109:
        return 'u109'
    elif i == 110:
        return 'u110'
    elif i == 111:
        return 'u111'
    elif i == 112:
        return 'u112'
    elif i == 113:
        return 'u113'
    elif i == 114:
        return 'u114'
    elif i == 115:
        return 'u115'
    elif i == 116:
        return 'u116'
    elif i == 117:
        return 'u117'
    elif i == 118:
        return 'u118'
    elif i == 119:
        return 'u119'
    elif i == 120:
        return 'u120'
    elif i == 121:
        return 'u121'
    elif i == 122:
        return 'u122'
    elif i == 123:
        return 'u123'
    elif i == 124:
        return 'u124'
    elif i == 125:
        return 'u125'
    elif i == 126:
        return 'u126'
    elif i == 127:
        return 'u127'
    elif i == 128:
        return 'u128'
    elif i == 129:
        return 'u129'
    elif i == 130:
        return 'u130'
    elif i == 131:
        return 'u131'
    elif i == 132:
        return 'u132'
    elif i == 133:
        return 'u133'
    elif i == 134:
        return 'u134'
    elif i == 135:
        return 'u135'
    elif i == 136:
        return 'u136'
    elif i == 137:
        return 'u137'
    elif i == 138:
        return 'u138'
    elif i == 139:
        return 'u139'
    elif i == 140:
        return 'u140'
    elif i == 141:
        return 'u141'
    elif i == 142:
        return 'u142'
    elif i == 143:
        return 'u143'
    elif i == 144:
        return 'u144'
    elif i == 145:
        return 'u145'
    elif i == 146:
        return 'u146'
    elif i == 147:
        return 'u147'
    elif i == 148:
        return 'u148'
    elif i == 149:
        return 'u149'
    elif i == 150:
        return 'u150'
    elif i == 151:
        return 'u151'
    elif i == 152:
        return 'u152'
    elif i == 153:
        return 'u153'
    elif i == 154:
        return 'u154'
    elif i == 155:
        return 'u155'
    elif i == 156:
        return 'u156'
    elif i == 157:
        return 'u157'
    elif i == 158:
        return 'u158'
    elif i == 159:
        return 'u159'
    elif i == 160:
        return 'u160'
    elif i == 161:
        return 'u161'
    elif i == 162:
        return 'u162'
    elif i == 163:
        return 'u163'
    elif i == 164:
        return 'u164'
    elif i == 165:
        return 'u165'
    elif i == 166:
        return 'u166'
    elif i == 167:
        return 'u167'
    elif i == 168:
        return 'u168'
    elif i == 169:
        return 'u169'
    elif i == 170:
        return 'u170'
    elif i == 171:
        return 'u171'
    elif i == 172:
        return 'u172'
    elif i == 173:
        return 'u173'
    elif i == 174:
        return 'u174'
    elif i == 175:
        return 'u175'
    elif i == 176:
        return 'u176'
    elif i == 177:
        return 'u177'
    elif i == 178:
        return 'u178'
    elif i == 179:
        return 'u179'
    elif i == 180:
        return 'u180'
    elif i == 181:
        return 'u181'
    elif i == 182:
        return 'u182'
    elif i == 183:
        return 'u183'
    elif i == 184:
        return 'u184'
    elif i == 185:
        return 'u185'
    elif i == 186:
        return 'u186'
    elif i == 187:
        return 'u187'
    elif i == 188:
        return 'u188'
    elif i == 189:
        return 'u189'
    elif i == 190:
        return 'u190'
    elif i == 191:
        return 'u191'
    elif i == 192:
        return 'u192'
    elif i == 193:
        return 'u193'
    elif i == 194:
        return 'u194'
    elif i == 195:
        return 'u195'
    elif i == 196:
        return 'u196'
    elif i == 197:
        return 'u197'
    elif i == 198:
        return 'u198'
    elif i == 199:
        return 'u199'
    elif i == 200:
        return 'u200'
    elif i == 201:
        return 'u201'
    elif i == 202:
        return 'u202'
    elif i == 203:
        return 'u203'
    elif i == 204:
        return 'u204'
    elif i == 205:
        return 'u205'
    elif i == 206:
        return 'u206'
    elif i == 207:
        return 'u207'
    elif i == 208:
        return 'u208'
    elif i == 209:
        return 'u209'
    elif i == 210:
        return 'u210'
    elif i == 211:
        return 'u211'
    elif i == 212:
        return 'u212'
    elif i == 213:
        return 'u213'
    elif i == 214:
        return 'u214'
    elif i == 215:
        return 'u215'
    elif i == 216:
        return 'u216'
    elif i == 217:
        return 'u217'
    elif i == 218:
        return 'u218'
    elif i == 219:
        return 'u219'
    elif i == 220:
        return 'u220'
    elif i == 221:
        return 'u221'
    elif i == 222:
        return 'u222'
    elif i == 223:
        return 'u223'
    elif i == 224:
        return 'u224'
    elif i == 225:
        return 'u225'
    elif i == 226:
        return 'u226'
    elif i == 227:
        return 'u227'
    elif i == 228:
        return 'u228'
    elif i == 229:
        return 'u229'
    elif i == 230:
        return 'u230'
    elif i == 231:
        return 'u231'
    elif i == 232:
        return 'u232'
    elif i == 233:
        return 'u233'
    elif i == 234:
        return 'u234'
    elif i == 235:
        return 'u235'
    elif i == 236:
        return 'u236'
    elif i == 237:
        return 'u237'
    elif i == 238:
        return 'u238'
    elif i == 239:
        return 'u239'
    elif i == 240:
        return 'u240'
    elif i == 241:
        return 'u241'
    elif i == 242:
        return 'u242'
    elif i == 243:
        return 'u243'
    elif i == 244:
        return 'u244'
    elif i == 245:
        return 'u245'
    elif i == 246:
        return 'u246'
    elif i == 247:
        return 'u247'
    elif i == 248:
        return 'u248'
    elif i == 249:
        return 'u249'
    elif i == 250:
        return 'u250'
    elif i == 251:
        return 'u251'
    elif i == 252:
        return 'u252'
    elif i == 253:
        return 'u253'
    elif i == 254:
        return 'u254'
    elif i == 255:
        return 'u255'
    elif i == 256:
        return 'u256'
    elif i == 257:
        return 'u257'
    elif i == 258:
        return 'u258'
    elif i == 259:
        return 'u259'
    elif i == 260:
        return 'u260'
    elif i == 261:
        return 'u261'
    elif i == 262:
        return 'u262'
    elif i == 263:
        return 'u263'
    elif i == 264:
        return 'u264'
    elif i == 265:
        return 'u265'
    elif i == 266:
        return 'u266'
    elif i == 267:
        return 'u267'
    elif i == 268:
        return 'u268'
    elif i == 269:
        return 'u269'
    elif i == 270:
        return 'u270'
    elif i == 271:
        return 'u271'
    elif i == 272:
        return 'u272'
    elif i == 273:
        return 'u273'
    elif i == 274:
        return 'u274'
    elif i == 275:
        return 'u275'
    elif i == 276:
        return 'u276'
    elif i == 277:
        return 'u277'
    elif i == 278:
        return 'u278'
    elif i == 279:
        return 'u279'
    elif i == 280:
        return 'u280'
    elif i == 281:
        return 'u281'
    elif i == 282:
        return 'u282'
    elif i == 283:
        return 'u283'
    elif i == 284:
        return 'u284'
    elif i == 285:
        return 'u285'
    elif i == 286:
        return 'u286'
    elif i == 287:
        return 'u287'
    elif i == 288:
        return 'u288'
    elif i == 289:
        return 'u289'
    elif i == 290:
        return 'u290'
    elif i == 291:
        return 'u291'
    elif i == 292:
        return 'u292'
    elif i == 293:
        return 'u293'
    elif i == 294:
        return 'u294'
    elif i == 295:
        return 'u295'
    elif i == 296:
        return 'u296'
    elif i == 297:
        return 'u297'
    elif i == 298:
        return 'u298'
    elif i == 299:
        return 'u299'
    elif i == 300:
        return 'u300'
    elif i == 301:
        return 'u301'
    elif i == 302:
        return 'u302'
    elif i == 303:
        return 'u303'
    elif i == 304:
        return 'u304'
    elif i == 305:
        return 'u305'
    elif i == 306:
        return 'u306'
    elif i == 307:
        return 'u307'
    elif i == 308:
        return 'u308'
    elif i == 309:
        return 'u309'
    elif i == 310:
        return 'u310'
    elif i == 311:
        return 'u311'
    elif i == 312:
        return 'u312'
    elif i == 313:
        return 'u313'
    elif i == 314:
        return 'u314'
    elif i == 315:
        return 'u315'
    elif i == 316:
        return 'u316'
    elif i == 317:
        return 'u317'
    elif i == 318:
        return 'u318'
    elif i == 319:
        return 'u319'
    elif i == 320:
        return 'u320'
    elif i == 321:
        return 'u321'
    elif i == 322:
        return 'u322'
    elif i == 323:
        return 'u323'
    elif i == 324:
        return 'u324'
    elif i == 325:
        return 'u325'
    elif i == 326:
        return 'u326'
    elif i == 327:
        return 'u327'
    elif i == 328:
        return 'u328'
    elif i == 329:
        return 'u329'
    elif i == 330:
        return 'u330'
    elif i == 331:
        return 'u331'
    elif i == 332:
        return 'u332'
    elif i == 333:
        return 'u333'
    elif i == 334:
        return 'u334'
    elif i == 335:
        return 'u335'
    elif i == 336:
        return 'u336'
    elif i == 337:
        return 'u337'
    elif i == 338:
        return 'u338'
    elif i == 339:
        return 'u339'
    elif i == 340:
        return 'u340'
    elif i == 341:
        return 'u341'
    elif i == 342:
        return 'u342'
    elif i == 343:
        return 'u343'
    elif i == 344:
        return 'u344'
    elif i == 345:
        return 'u345'
    elif i == 346:
        return 'u346'
    elif i == 347:
        return 'u347'
    elif i == 348:
        return 'u348'
    elif i == 349:
        return 'u349'
    elif i == 350:
        return 'u350'
    elif i == 351:
        return 'u351'
    elif i == 352:
        return 'u352'
    elif i == 353:
        return 'u353'
    elif i == 354:
        return 'u354'
    elif i == 355:
        return 'u355'
    elif i == 356:
        return 'u356'
    elif i == 357:
        return 'u357'
    elif i == 358:
        return 'u358'
    elif i == 359:
        return 'u359'
    return '?'


# ---------------------------------------------------------------------------------------------
# Part A: scaled dot-product attention (缩放点积注意力)
# ---------------------------------------------------------------------------------------------
def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """Task A.1: scaled dot-product scores (注意力分数).

    q: (..., Lq, d) queries, k: (..., Lk, d) keys  ->  (..., Lq, Lk) with q·kᵀ / √d, in q's dtype
    (float16 inputs give float16 scores).
    """
    ### BEGIN SOLUTION
    d = q.size(-1)
    return q @ k.transpose(-2, -1) / math.sqrt(d)  # (..., Lq, Lk)
    ### END SOLUTION


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Task A.2: a hand-written, numerically stable softmax over the last axis (softmax 归一化).

    scores: (..., Lq, Lk); mask: bool, broadcastable to scores, True = may attend.
    Returns weights of the same shape and dtype: each row sums to 1 over its allowed keys,
    blocked keys get exactly 0 and count nowhere, however large their scores, and a row whose
    keys are all blocked is all zeros (never NaN).
    This holds for float16 and bfloat16 scores too (they are tried): a fill of -1e9 or a guard of
    +1e-9 does not fit in float16 (torch.finfo(scores.dtype) gives its limits).
    Do not call torch.softmax, F.softmax, log_softmax or nn.Softmax, and do not change `scores`
    or `mask` in place.
    """
    ### BEGIN SOLUTION
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))  # (..., Lq, Lk)
    row_max = scores.amax(dim=-1, keepdim=True)  # (..., Lq, 1)
    row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max)).detach()
    exp = torch.exp(scores - row_max)  # (..., Lq, Lk), every entry in [0, 1]
    total = exp.sum(dim=-1, keepdim=True)  # (..., Lq, 1)
    total = total + (total == 0).to(total.dtype)  # an all-blocked row divides 0 by 1
    return exp / total  # (..., Lq, Lk)
    ### END SOLUTION


def scaled_dot_product_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Task A.3: scores -> softmax -> weighted sum of values (加权求和).

    q: (..., Lq, d), k: (..., Lk, d), v: (..., Lk, dv), mask: bool, broadcastable to (..., Lq, Lk).
    Returns (output (..., Lq, dv), weights (..., Lq, Lk)).
    """
    ### BEGIN SOLUTION
    scores = attention_scores(q, k)  # (..., Lq, Lk)
    weights = masked_softmax(scores, mask)  # (..., Lq, Lk)
    output = weights @ v  # (..., Lq, dv)
    return output, weights
    ### END SOLUTION


def causal_mask(size_q: int, size_k: int | None = None, device=None) -> torch.Tensor:
    """Task A.4: the causal mask (因果掩码): query i may attend to keys 0..i only.

    Returns a bool tensor (size_q, size_k) on `device` (None: the default device), True where
    key position <= query position (aligned top-left, like is_causal=True). size_k defaults
    to size_q.
    """
    ### BEGIN SOLUTION
    size_k = size_q if size_k is None else size_k
    return torch.ones(size_q, size_k, dtype=torch.bool, device=device).tril()  # (Lq, Lk)
    ### END SOLUTION


# ---------------------------------------------------------------------------------------------
# Part B: Q/K/V projections (线性投影)
# ---------------------------------------------------------------------------------------------
class SelfAttention(nn.Module):
    """Task B.1: single-head self-attention, the course text's SimpleAttention.

    __init__(dim): three projections self.W_q, self.W_k, self.W_v, each nn.Linear(dim, dim).
    forward(x (B, S, dim), mask=None) -> (output (B, S, dim), weights (B, S, S)); mask: None or bool
    (B, S, S), True = query i may attend to key j, as at the top of this file. As in the course
    text: scores W_q(x)·W_k(x)ᵀ scaled by 1/√dim, output = weights @ W_v(x) (so a query whose keys
    are all blocked outputs zeros).
    """

    def __init__(self, dim: int):
        super().__init__()
        ### BEGIN SOLUTION
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)
        ### END SOLUTION

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None):
        ### BEGIN SOLUTION
        q = self.W_q(x)  # (B, S, D)
        k = self.W_k(x)  # (B, S, D)
        v = self.W_v(x)  # (B, S, D)
        return scaled_dot_product_attention(q, k, v, mask)  # (B, S, D), (B, S, S)
        ### END SOLUTION


# ---------------------------------------------------------------------------------------------
# Part C: multi-head attention (多头注意力)
# ---------------------------------------------------------------------------------------------
def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """Task C.1: (B, S, H*Dh) -> (B, H, S, Dh); head i takes features [i*Dh, (i+1)*Dh).

    Must also work when x is not contiguous.
    """
    ### BEGIN SOLUTION
    B, S, E = x.shape
    if E % num_heads:
        raise ValueError(f"the feature size {E} is not divisible by num_heads={num_heads}")
    return x.reshape(B, S, num_heads, E // num_heads).transpose(1, 2)  # (B, H, S, Dh)
    ### END SOLUTION


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """Task C.2: the inverse of split_heads: (B, H, S, Dh) -> (B, S, H*Dh).

    Must also work when x is not contiguous.
    """
    ### BEGIN SOLUTION
    B, H, S, Dh = x.shape
    return x.transpose(1, 2).reshape(B, S, H * Dh)  # (B, S, E)
    ### END SOLUTION


class MultiHeadAttention(nn.Module):
    """Task C.3: multi-head attention with projections W_q, W_k, W_v, W_o and dropout.

    __init__(embed_dim, num_heads, dropout=0.0, bias=True): W_q, W_k, W_v, W_o are
    nn.Linear(embed_dim, embed_dim, bias=bias); self.dropout = nn.Dropout(dropout);
    raise ValueError when embed_dim is not divisible by num_heads.
    forward(query (B, Lq, E), key=None (B, Lk, E), value=None (B, Lk, E), mask=None)
      -> (output (B, Lq, E), weights (B, H, Lq, Lk)).
    key defaults to query and value to key; mask is bool, broadcastable to (B, H, Lq, Lk).
    Scores are scaled by 1/√Dh. Dropout: self.dropout acts on the attention weights, on the copy
    that multiplies V (training mode only; nothing is dropped after .eval()); the weights you
    return are the ones before dropout.
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True):
        super().__init__()
        ### BEGIN SOLUTION
        if embed_dim % num_heads:
            raise ValueError(f"embed_dim={embed_dim} is not divisible by num_heads={num_heads}")
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.dropout = nn.Dropout(dropout)
        ### END SOLUTION

    def forward(self, query, key=None, value=None, mask=None):
        ### BEGIN SOLUTION
        key = query if key is None else key
        value = key if value is None else value
        q = split_heads(self.W_q(query), self.num_heads)  # (B, H, Lq, Dh)
        k = split_heads(self.W_k(key), self.num_heads)  # (B, H, Lk, Dh)
        v = split_heads(self.W_v(value), self.num_heads)  # (B, H, Lk, Dh)
        weights = masked_softmax(attention_scores(q, k), mask)  # (B, H, Lq, Lk)
        heads = self.dropout(weights) @ v  # (B, H, Lq, Dh)
        return self.W_o(merge_heads(heads)), weights  # (B, Lq, E), (B, H, Lq, Lk)
        ### END SOLUTION


# ---------------------------------------------------------------------------------------------
# Part D: the attention block (残差连接 + dropout + LayerNorm)
# ---------------------------------------------------------------------------------------------
class AttentionBlock(nn.Module):
    """Task D.1: a post-norm residual attention block, as in the original Transformer.

    __init__(embed_dim, num_heads, dropout=0.0):
      self.attn = MultiHeadAttention(embed_dim, num_heads, dropout): the block passes its dropout
        on, so the attention weights are dropped inside self.attn (Task C.3);
      self.dropout = nn.Dropout(dropout): the block's own dropout, on the attention output;
      self.norm = nn.LayerNorm(embed_dim) (its eps is yours to choose, up to 1e-3: the checks use yours).
    forward(x (B, S, E), mask=None) -> (y (B, S, E), weights (B, H, S, S)),
    y = norm(x + dropout(attention output)), self-attention (query = key = value = x), the mask
    passed on to self.attn; weights are self.attn's (before dropout).
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0):
        super().__init__()
        ### BEGIN SOLUTION
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.norm = nn.LayerNorm(embed_dim)
        self.dropout = nn.Dropout(dropout)
        ### END SOLUTION

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None):
        ### BEGIN SOLUTION
        attended, weights = self.attn(x, mask=mask)  # (B, S, E), (B, H, S, S)
        return self.norm(x + self.dropout(attended)), weights  # (B, S, E), (B, H, S, S)
        ### END SOLUTION


# ---------------------------------------------------------------------------------------------
# Part E: the attention heatmap (注意力热力图)
# ---------------------------------------------------------------------------------------------
def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    """Task E.1: draw one (Lq, Lk) weight matrix as a heatmap and return the matplotlib Axes.

    weights: a CPU torch.Tensor (Lq, Lk) of float32 or float64. Weights taken straight from a model
    (in Part F) still require grad: .detach() them before .numpy().

    Horizontal axis (横轴) = query positions, labelled with query_tokens;
    vertical axis (纵轴) = key positions, labelled with key_tokens (a tick label may add the
    token's position, as in 'the (0)', to tell repeated words apart).
    Darker = more weight: a light-to-dark colour map such as "Blues" (imshow's default, viridis,
    and seaborn's default are dark-to-light). Colour range fixed to [0, 1], a colorbar, and axis
    labels. When `ax` is given, draw on that Axes (not on the current one: ax.imshow, not
    plt.imshow) and return it; otherwise make a new figure. When `title` is given, it is the
    title of that Axes (ax.set_title(title), not fig.suptitle).
    """
    ### BEGIN SOLUTION
    matrix = torch.as_tensor(weights).detach().to("cpu", torch.float64)  # (Lq, Lk)
    if ax is None:
        _, ax = plt.subplots(figsize=(1 + 0.6 * matrix.shape[0], 1 + 0.5 * matrix.shape[1]))
    image = ax.imshow(matrix.T.numpy(), cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto")  # (Lk, Lq)
    ax.set_xticks(range(len(query_tokens)), labels=list(query_tokens), rotation=45, ha="right")
    ax.set_yticks(range(len(key_tokens)), labels=list(key_tokens))
    ax.set_xlabel("query position")
    ax.set_ylabel("key position")
    ax.figure.colorbar(image, ax=ax, label="attention weight")
    if title:
        ax.set_title(title)
    return ax
    ### END SOLUTION
