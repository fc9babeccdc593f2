# qa7s c09_very_long_file: CORRECT: a very long file (about 2,500 lines): 1,300 lines of study notes in comments, 150 unused scratch helpers between the tasks, long docstrings.
# Per-part scores (A-D): A=32 B=10 C=28 D=12.
# Mistakes named: none.
# ruff: noqa  (a student's file: written as a student writes it)
import math

import matplotlib.pyplot as plt
import torch
import torch.nn as nn


# Note 0000: attention weights are a distribution over keys for each query
# Note 0001: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0002: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0003: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0004: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0005: attention weights are a distribution over keys for each query
# Note 0006: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0007: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0008: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0009: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0010: attention weights are a distribution over keys for each query
# Note 0011: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0012: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0013: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0014: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0015: attention weights are a distribution over keys for each query
# Note 0016: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0017: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0018: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0019: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0020: attention weights are a distribution over keys for each query
# Note 0021: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0022: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0023: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0024: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0025: attention weights are a distribution over keys for each query
# Note 0026: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0027: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0028: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0029: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0030: attention weights are a distribution over keys for each query
# Note 0031: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0032: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0033: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0034: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0035: attention weights are a distribution over keys for each query
# Note 0036: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0037: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0038: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0039: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0040: attention weights are a distribution over keys for each query
# Note 0041: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0042: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0043: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0044: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0045: attention weights are a distribution over keys for each query
# Note 0046: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0047: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0048: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0049: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0050: attention weights are a distribution over keys for each query
# Note 0051: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0052: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0053: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0054: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0055: attention weights are a distribution over keys for each query
# Note 0056: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0057: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0058: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0059: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0060: attention weights are a distribution over keys for each query
# Note 0061: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0062: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0063: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0064: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0065: attention weights are a distribution over keys for each query
# Note 0066: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0067: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0068: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0069: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0070: attention weights are a distribution over keys for each query
# Note 0071: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0072: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0073: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0074: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0075: attention weights are a distribution over keys for each query
# Note 0076: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0077: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0078: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0079: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0080: attention weights are a distribution over keys for each query
# Note 0081: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0082: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0083: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0084: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0085: attention weights are a distribution over keys for each query
# Note 0086: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0087: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0088: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0089: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0090: attention weights are a distribution over keys for each query
# Note 0091: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0092: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0093: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0094: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0095: attention weights are a distribution over keys for each query
# Note 0096: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0097: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0098: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0099: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0100: attention weights are a distribution over keys for each query
# Note 0101: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0102: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0103: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0104: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0105: attention weights are a distribution over keys for each query
# Note 0106: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0107: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0108: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0109: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0110: attention weights are a distribution over keys for each query
# Note 0111: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0112: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0113: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0114: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0115: attention weights are a distribution over keys for each query
# Note 0116: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0117: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0118: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0119: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0120: attention weights are a distribution over keys for each query
# Note 0121: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0122: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0123: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0124: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0125: attention weights are a distribution over keys for each query
# Note 0126: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0127: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0128: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0129: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0130: attention weights are a distribution over keys for each query
# Note 0131: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0132: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0133: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0134: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0135: attention weights are a distribution over keys for each query
# Note 0136: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0137: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0138: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0139: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0140: attention weights are a distribution over keys for each query
# Note 0141: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0142: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0143: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0144: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0145: attention weights are a distribution over keys for each query
# Note 0146: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0147: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0148: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0149: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0150: attention weights are a distribution over keys for each query
# Note 0151: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0152: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0153: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0154: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0155: attention weights are a distribution over keys for each query
# Note 0156: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0157: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0158: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0159: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0160: attention weights are a distribution over keys for each query
# Note 0161: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0162: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0163: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0164: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0165: attention weights are a distribution over keys for each query
# Note 0166: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0167: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0168: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0169: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0170: attention weights are a distribution over keys for each query
# Note 0171: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0172: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0173: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0174: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0175: attention weights are a distribution over keys for each query
# Note 0176: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0177: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0178: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0179: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0180: attention weights are a distribution over keys for each query
# Note 0181: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0182: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0183: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0184: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0185: attention weights are a distribution over keys for each query
# Note 0186: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0187: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0188: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0189: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0190: attention weights are a distribution over keys for each query
# Note 0191: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0192: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0193: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0194: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0195: attention weights are a distribution over keys for each query
# Note 0196: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0197: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0198: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0199: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0200: attention weights are a distribution over keys for each query
# Note 0201: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0202: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0203: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0204: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0205: attention weights are a distribution over keys for each query
# Note 0206: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0207: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0208: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0209: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0210: attention weights are a distribution over keys for each query
# Note 0211: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0212: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0213: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0214: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0215: attention weights are a distribution over keys for each query
# Note 0216: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0217: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0218: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0219: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0220: attention weights are a distribution over keys for each query
# Note 0221: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0222: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0223: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0224: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0225: attention weights are a distribution over keys for each query
# Note 0226: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0227: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0228: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0229: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0230: attention weights are a distribution over keys for each query
# Note 0231: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0232: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0233: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0234: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0235: attention weights are a distribution over keys for each query
# Note 0236: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0237: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0238: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0239: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0240: attention weights are a distribution over keys for each query
# Note 0241: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0242: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0243: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0244: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0245: attention weights are a distribution over keys for each query
# Note 0246: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0247: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0248: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0249: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0250: attention weights are a distribution over keys for each query
# Note 0251: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0252: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0253: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0254: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0255: attention weights are a distribution over keys for each query
# Note 0256: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0257: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0258: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0259: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0260: attention weights are a distribution over keys for each query
# Note 0261: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0262: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0263: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0264: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0265: attention weights are a distribution over keys for each query
# Note 0266: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0267: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0268: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0269: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0270: attention weights are a distribution over keys for each query
# Note 0271: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0272: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0273: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0274: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0275: attention weights are a distribution over keys for each query
# Note 0276: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0277: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0278: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0279: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0280: attention weights are a distribution over keys for each query
# Note 0281: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0282: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0283: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0284: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0285: attention weights are a distribution over keys for each query
# Note 0286: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0287: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0288: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0289: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0290: attention weights are a distribution over keys for each query
# Note 0291: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0292: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0293: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0294: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0295: attention weights are a distribution over keys for each query
# Note 0296: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0297: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0298: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0299: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0300: attention weights are a distribution over keys for each query
# Note 0301: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0302: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0303: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0304: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0305: attention weights are a distribution over keys for each query
# Note 0306: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0307: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0308: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0309: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0310: attention weights are a distribution over keys for each query
# Note 0311: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0312: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0313: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0314: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0315: attention weights are a distribution over keys for each query
# Note 0316: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0317: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0318: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0319: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0320: attention weights are a distribution over keys for each query
# Note 0321: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0322: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0323: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0324: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0325: attention weights are a distribution over keys for each query
# Note 0326: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0327: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0328: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0329: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0330: attention weights are a distribution over keys for each query
# Note 0331: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0332: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0333: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0334: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0335: attention weights are a distribution over keys for each query
# Note 0336: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0337: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0338: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0339: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0340: attention weights are a distribution over keys for each query
# Note 0341: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0342: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0343: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0344: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0345: attention weights are a distribution over keys for each query
# Note 0346: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0347: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0348: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0349: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0350: attention weights are a distribution over keys for each query
# Note 0351: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0352: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0353: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0354: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0355: attention weights are a distribution over keys for each query
# Note 0356: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0357: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0358: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0359: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0360: attention weights are a distribution over keys for each query
# Note 0361: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0362: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0363: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0364: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0365: attention weights are a distribution over keys for each query
# Note 0366: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0367: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0368: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0369: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0370: attention weights are a distribution over keys for each query
# Note 0371: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0372: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0373: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0374: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0375: attention weights are a distribution over keys for each query
# Note 0376: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0377: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0378: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0379: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0380: attention weights are a distribution over keys for each query
# Note 0381: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0382: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0383: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0384: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0385: attention weights are a distribution over keys for each query
# Note 0386: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0387: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0388: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0389: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0390: attention weights are a distribution over keys for each query
# Note 0391: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0392: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0393: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0394: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0395: attention weights are a distribution over keys for each query
# Note 0396: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0397: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0398: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0399: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0400: attention weights are a distribution over keys for each query
# Note 0401: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0402: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0403: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0404: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0405: attention weights are a distribution over keys for each query
# Note 0406: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0407: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0408: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0409: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0410: attention weights are a distribution over keys for each query
# Note 0411: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0412: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0413: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0414: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0415: attention weights are a distribution over keys for each query
# Note 0416: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0417: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0418: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0419: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0420: attention weights are a distribution over keys for each query
# Note 0421: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0422: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0423: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0424: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0425: attention weights are a distribution over keys for each query
# Note 0426: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0427: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0428: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0429: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0430: attention weights are a distribution over keys for each query
# Note 0431: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0432: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0433: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0434: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0435: attention weights are a distribution over keys for each query
# Note 0436: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0437: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0438: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0439: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0440: attention weights are a distribution over keys for each query
# Note 0441: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0442: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0443: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0444: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0445: attention weights are a distribution over keys for each query
# Note 0446: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0447: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0448: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0449: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0450: attention weights are a distribution over keys for each query
# Note 0451: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0452: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0453: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0454: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0455: attention weights are a distribution over keys for each query
# Note 0456: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0457: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0458: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0459: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0460: attention weights are a distribution over keys for each query
# Note 0461: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0462: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0463: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0464: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0465: attention weights are a distribution over keys for each query
# Note 0466: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0467: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0468: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0469: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0470: attention weights are a distribution over keys for each query
# Note 0471: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0472: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0473: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0474: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0475: attention weights are a distribution over keys for each query
# Note 0476: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0477: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0478: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0479: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0480: attention weights are a distribution over keys for each query
# Note 0481: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0482: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0483: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0484: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0485: attention weights are a distribution over keys for each query
# Note 0486: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0487: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0488: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0489: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0490: attention weights are a distribution over keys for each query
# Note 0491: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0492: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0493: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0494: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0495: attention weights are a distribution over keys for each query
# Note 0496: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0497: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0498: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0499: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0500: attention weights are a distribution over keys for each query
# Note 0501: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0502: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0503: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0504: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0505: attention weights are a distribution over keys for each query
# Note 0506: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0507: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0508: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0509: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0510: attention weights are a distribution over keys for each query
# Note 0511: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0512: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0513: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0514: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0515: attention weights are a distribution over keys for each query
# Note 0516: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0517: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0518: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0519: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0520: attention weights are a distribution over keys for each query
# Note 0521: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0522: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0523: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0524: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0525: attention weights are a distribution over keys for each query
# Note 0526: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0527: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0528: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0529: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0530: attention weights are a distribution over keys for each query
# Note 0531: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0532: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0533: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0534: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0535: attention weights are a distribution over keys for each query
# Note 0536: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0537: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0538: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0539: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0540: attention weights are a distribution over keys for each query
# Note 0541: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0542: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0543: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0544: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0545: attention weights are a distribution over keys for each query
# Note 0546: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0547: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0548: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0549: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0550: attention weights are a distribution over keys for each query
# Note 0551: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0552: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0553: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0554: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0555: attention weights are a distribution over keys for each query
# Note 0556: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0557: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0558: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0559: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0560: attention weights are a distribution over keys for each query
# Note 0561: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0562: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0563: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0564: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0565: attention weights are a distribution over keys for each query
# Note 0566: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0567: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0568: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0569: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0570: attention weights are a distribution over keys for each query
# Note 0571: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0572: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0573: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0574: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0575: attention weights are a distribution over keys for each query
# Note 0576: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0577: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0578: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0579: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0580: attention weights are a distribution over keys for each query
# Note 0581: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0582: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0583: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0584: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0585: attention weights are a distribution over keys for each query
# Note 0586: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0587: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0588: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0589: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0590: attention weights are a distribution over keys for each query
# Note 0591: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0592: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0593: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0594: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0595: attention weights are a distribution over keys for each query
# Note 0596: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0597: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0598: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0599: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0600: attention weights are a distribution over keys for each query
# Note 0601: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0602: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0603: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0604: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0605: attention weights are a distribution over keys for each query
# Note 0606: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0607: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0608: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0609: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0610: attention weights are a distribution over keys for each query
# Note 0611: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0612: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0613: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0614: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0615: attention weights are a distribution over keys for each query
# Note 0616: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0617: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0618: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0619: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0620: attention weights are a distribution over keys for each query
# Note 0621: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0622: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0623: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0624: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0625: attention weights are a distribution over keys for each query
# Note 0626: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0627: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0628: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0629: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0630: attention weights are a distribution over keys for each query
# Note 0631: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0632: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0633: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0634: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0635: attention weights are a distribution over keys for each query
# Note 0636: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0637: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0638: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0639: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0640: attention weights are a distribution over keys for each query
# Note 0641: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0642: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0643: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0644: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0645: attention weights are a distribution over keys for each query
# Note 0646: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0647: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0648: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0649: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0650: attention weights are a distribution over keys for each query
# Note 0651: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0652: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0653: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0654: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0655: attention weights are a distribution over keys for each query
# Note 0656: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0657: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0658: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0659: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0660: attention weights are a distribution over keys for each query
# Note 0661: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0662: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0663: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0664: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0665: attention weights are a distribution over keys for each query
# Note 0666: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0667: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0668: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0669: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0670: attention weights are a distribution over keys for each query
# Note 0671: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0672: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0673: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0674: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0675: attention weights are a distribution over keys for each query
# Note 0676: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0677: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0678: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0679: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0680: attention weights are a distribution over keys for each query
# Note 0681: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0682: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0683: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0684: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0685: attention weights are a distribution over keys for each query
# Note 0686: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0687: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0688: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0689: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0690: attention weights are a distribution over keys for each query
# Note 0691: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0692: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0693: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0694: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0695: attention weights are a distribution over keys for each query
# Note 0696: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0697: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0698: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0699: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0700: attention weights are a distribution over keys for each query
# Note 0701: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0702: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0703: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0704: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0705: attention weights are a distribution over keys for each query
# Note 0706: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0707: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0708: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0709: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0710: attention weights are a distribution over keys for each query
# Note 0711: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0712: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0713: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0714: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0715: attention weights are a distribution over keys for each query
# Note 0716: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0717: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0718: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0719: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0720: attention weights are a distribution over keys for each query
# Note 0721: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0722: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0723: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0724: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0725: attention weights are a distribution over keys for each query
# Note 0726: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0727: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0728: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0729: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0730: attention weights are a distribution over keys for each query
# Note 0731: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0732: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0733: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0734: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0735: attention weights are a distribution over keys for each query
# Note 0736: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0737: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0738: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0739: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0740: attention weights are a distribution over keys for each query
# Note 0741: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0742: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0743: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0744: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0745: attention weights are a distribution over keys for each query
# Note 0746: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0747: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0748: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0749: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0750: attention weights are a distribution over keys for each query
# Note 0751: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0752: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0753: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0754: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0755: attention weights are a distribution over keys for each query
# Note 0756: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0757: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0758: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0759: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0760: attention weights are a distribution over keys for each query
# Note 0761: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0762: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0763: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0764: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0765: attention weights are a distribution over keys for each query
# Note 0766: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0767: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0768: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0769: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0770: attention weights are a distribution over keys for each query
# Note 0771: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0772: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0773: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0774: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0775: attention weights are a distribution over keys for each query
# Note 0776: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0777: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0778: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0779: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0780: attention weights are a distribution over keys for each query
# Note 0781: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0782: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0783: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0784: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0785: attention weights are a distribution over keys for each query
# Note 0786: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0787: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0788: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0789: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0790: attention weights are a distribution over keys for each query
# Note 0791: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0792: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0793: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0794: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0795: attention weights are a distribution over keys for each query
# Note 0796: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0797: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0798: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0799: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0800: attention weights are a distribution over keys for each query
# Note 0801: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0802: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0803: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0804: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0805: attention weights are a distribution over keys for each query
# Note 0806: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0807: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0808: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0809: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0810: attention weights are a distribution over keys for each query
# Note 0811: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0812: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0813: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0814: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0815: attention weights are a distribution over keys for each query
# Note 0816: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0817: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0818: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0819: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0820: attention weights are a distribution over keys for each query
# Note 0821: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0822: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0823: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0824: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0825: attention weights are a distribution over keys for each query
# Note 0826: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0827: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0828: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0829: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0830: attention weights are a distribution over keys for each query
# Note 0831: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0832: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0833: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0834: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0835: attention weights are a distribution over keys for each query
# Note 0836: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0837: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0838: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0839: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0840: attention weights are a distribution over keys for each query
# Note 0841: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0842: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0843: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0844: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0845: attention weights are a distribution over keys for each query
# Note 0846: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0847: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0848: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0849: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0850: attention weights are a distribution over keys for each query
# Note 0851: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0852: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0853: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0854: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0855: attention weights are a distribution over keys for each query
# Note 0856: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0857: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0858: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0859: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0860: attention weights are a distribution over keys for each query
# Note 0861: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0862: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0863: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0864: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0865: attention weights are a distribution over keys for each query
# Note 0866: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0867: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0868: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0869: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0870: attention weights are a distribution over keys for each query
# Note 0871: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0872: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0873: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0874: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0875: attention weights are a distribution over keys for each query
# Note 0876: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0877: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0878: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0879: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0880: attention weights are a distribution over keys for each query
# Note 0881: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0882: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0883: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0884: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0885: attention weights are a distribution over keys for each query
# Note 0886: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0887: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0888: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0889: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0890: attention weights are a distribution over keys for each query
# Note 0891: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0892: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0893: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0894: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0895: attention weights are a distribution over keys for each query
# Note 0896: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0897: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0898: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0899: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0900: attention weights are a distribution over keys for each query
# Note 0901: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0902: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0903: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0904: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0905: attention weights are a distribution over keys for each query
# Note 0906: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0907: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0908: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0909: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0910: attention weights are a distribution over keys for each query
# Note 0911: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0912: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0913: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0914: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0915: attention weights are a distribution over keys for each query
# Note 0916: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0917: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0918: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0919: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0920: attention weights are a distribution over keys for each query
# Note 0921: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0922: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0923: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0924: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0925: attention weights are a distribution over keys for each query
# Note 0926: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0927: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0928: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0929: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0930: attention weights are a distribution over keys for each query
# Note 0931: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0932: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0933: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0934: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0935: attention weights are a distribution over keys for each query
# Note 0936: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0937: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0938: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0939: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0940: attention weights are a distribution over keys for each query
# Note 0941: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0942: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0943: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0944: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0945: attention weights are a distribution over keys for each query
# Note 0946: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0947: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0948: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0949: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0950: attention weights are a distribution over keys for each query
# Note 0951: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0952: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0953: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0954: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0955: attention weights are a distribution over keys for each query
# Note 0956: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0957: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0958: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0959: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0960: attention weights are a distribution over keys for each query
# Note 0961: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0962: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0963: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0964: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0965: attention weights are a distribution over keys for each query
# Note 0966: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0967: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0968: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0969: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0970: attention weights are a distribution over keys for each query
# Note 0971: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0972: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0973: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0974: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0975: attention weights are a distribution over keys for each query
# Note 0976: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0977: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0978: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0979: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0980: attention weights are a distribution over keys for each query
# Note 0981: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0982: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0983: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0984: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0985: attention weights are a distribution over keys for each query
# Note 0986: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0987: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0988: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0989: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0990: attention weights are a distribution over keys for each query
# Note 0991: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0992: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0993: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0994: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 0995: attention weights are a distribution over keys for each query
# Note 0996: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 0997: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 0998: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 0999: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1000: attention weights are a distribution over keys for each query
# Note 1001: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1002: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1003: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1004: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1005: attention weights are a distribution over keys for each query
# Note 1006: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1007: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1008: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1009: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1010: attention weights are a distribution over keys for each query
# Note 1011: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1012: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1013: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1014: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1015: attention weights are a distribution over keys for each query
# Note 1016: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1017: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1018: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1019: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1020: attention weights are a distribution over keys for each query
# Note 1021: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1022: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1023: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1024: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1025: attention weights are a distribution over keys for each query
# Note 1026: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1027: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1028: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1029: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1030: attention weights are a distribution over keys for each query
# Note 1031: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1032: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1033: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1034: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1035: attention weights are a distribution over keys for each query
# Note 1036: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1037: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1038: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1039: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1040: attention weights are a distribution over keys for each query
# Note 1041: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1042: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1043: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1044: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1045: attention weights are a distribution over keys for each query
# Note 1046: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1047: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1048: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1049: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1050: attention weights are a distribution over keys for each query
# Note 1051: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1052: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1053: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1054: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1055: attention weights are a distribution over keys for each query
# Note 1056: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1057: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1058: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1059: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1060: attention weights are a distribution over keys for each query
# Note 1061: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1062: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1063: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1064: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1065: attention weights are a distribution over keys for each query
# Note 1066: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1067: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1068: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1069: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1070: attention weights are a distribution over keys for each query
# Note 1071: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1072: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1073: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1074: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1075: attention weights are a distribution over keys for each query
# Note 1076: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1077: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1078: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1079: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1080: attention weights are a distribution over keys for each query
# Note 1081: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1082: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1083: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1084: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1085: attention weights are a distribution over keys for each query
# Note 1086: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1087: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1088: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1089: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1090: attention weights are a distribution over keys for each query
# Note 1091: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1092: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1093: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1094: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1095: attention weights are a distribution over keys for each query
# Note 1096: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1097: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1098: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1099: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1100: attention weights are a distribution over keys for each query
# Note 1101: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1102: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1103: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1104: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1105: attention weights are a distribution over keys for each query
# Note 1106: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1107: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1108: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1109: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1110: attention weights are a distribution over keys for each query
# Note 1111: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1112: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1113: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1114: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1115: attention weights are a distribution over keys for each query
# Note 1116: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1117: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1118: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1119: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1120: attention weights are a distribution over keys for each query
# Note 1121: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1122: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1123: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1124: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1125: attention weights are a distribution over keys for each query
# Note 1126: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1127: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1128: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1129: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1130: attention weights are a distribution over keys for each query
# Note 1131: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1132: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1133: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1134: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1135: attention weights are a distribution over keys for each query
# Note 1136: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1137: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1138: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1139: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1140: attention weights are a distribution over keys for each query
# Note 1141: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1142: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1143: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1144: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1145: attention weights are a distribution over keys for each query
# Note 1146: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1147: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1148: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1149: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1150: attention weights are a distribution over keys for each query
# Note 1151: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1152: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1153: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1154: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1155: attention weights are a distribution over keys for each query
# Note 1156: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1157: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1158: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1159: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1160: attention weights are a distribution over keys for each query
# Note 1161: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1162: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1163: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1164: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1165: attention weights are a distribution over keys for each query
# Note 1166: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1167: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1168: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1169: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1170: attention weights are a distribution over keys for each query
# Note 1171: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1172: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1173: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1174: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1175: attention weights are a distribution over keys for each query
# Note 1176: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1177: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1178: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1179: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1180: attention weights are a distribution over keys for each query
# Note 1181: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1182: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1183: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1184: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1185: attention weights are a distribution over keys for each query
# Note 1186: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1187: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1188: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1189: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1190: attention weights are a distribution over keys for each query
# Note 1191: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1192: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1193: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1194: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1195: attention weights are a distribution over keys for each query
# Note 1196: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1197: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1198: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1199: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1200: attention weights are a distribution over keys for each query
# Note 1201: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1202: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1203: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1204: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1205: attention weights are a distribution over keys for each query
# Note 1206: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1207: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1208: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1209: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1210: attention weights are a distribution over keys for each query
# Note 1211: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1212: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1213: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1214: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1215: attention weights are a distribution over keys for each query
# Note 1216: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1217: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1218: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1219: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1220: attention weights are a distribution over keys for each query
# Note 1221: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1222: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1223: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1224: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1225: attention weights are a distribution over keys for each query
# Note 1226: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1227: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1228: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1229: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1230: attention weights are a distribution over keys for each query
# Note 1231: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1232: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1233: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1234: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1235: attention weights are a distribution over keys for each query
# Note 1236: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1237: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1238: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1239: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1240: attention weights are a distribution over keys for each query
# Note 1241: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1242: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1243: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1244: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1245: attention weights are a distribution over keys for each query
# Note 1246: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1247: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1248: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1249: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1250: attention weights are a distribution over keys for each query
# Note 1251: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1252: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1253: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1254: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1255: attention weights are a distribution over keys for each query
# Note 1256: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1257: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1258: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1259: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1260: attention weights are a distribution over keys for each query
# Note 1261: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1262: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1263: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1264: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1265: attention weights are a distribution over keys for each query
# Note 1266: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1267: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1268: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1269: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1270: attention weights are a distribution over keys for each query
# Note 1271: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1272: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1273: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1274: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1275: attention weights are a distribution over keys for each query
# Note 1276: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1277: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1278: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1279: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1280: attention weights are a distribution over keys for each query
# Note 1281: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1282: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1283: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1284: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1285: attention weights are a distribution over keys for each query
# Note 1286: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1287: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1288: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1289: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1290: attention weights are a distribution over keys for each query
# Note 1291: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1292: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1293: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1294: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady
# Note 1295: attention weights are a distribution over keys for each query
# Note 1296: scores grow like sqrt(d) when q and k have unit-variance entries, hence the scaling
# Note 1297: the mask blocks keys with -inf before the exp, so their weight is exactly zero
# Note 1298: multi-head attention runs H attentions of size Dh = E / H side by side
# Note 1299: the residual connection keeps the gradient path short; LayerNorm keeps the scale steady


def _unused_helper_000(x):
    """Scratch helper 0 from my notes (never called by the tasks)."""
    return x * 0 + torch.zeros_like(x)


def _unused_helper_001(x):
    """Scratch helper 1 from my notes (never called by the tasks)."""
    return x * 1 + torch.zeros_like(x)


def _unused_helper_002(x):
    """Scratch helper 2 from my notes (never called by the tasks)."""
    return x * 2 + torch.zeros_like(x)


def _unused_helper_003(x):
    """Scratch helper 3 from my notes (never called by the tasks)."""
    return x * 3 + torch.zeros_like(x)


def _unused_helper_004(x):
    """Scratch helper 4 from my notes (never called by the tasks)."""
    return x * 4 + torch.zeros_like(x)


def _unused_helper_005(x):
    """Scratch helper 5 from my notes (never called by the tasks)."""
    return x * 5 + torch.zeros_like(x)


def _unused_helper_006(x):
    """Scratch helper 6 from my notes (never called by the tasks)."""
    return x * 6 + torch.zeros_like(x)


def _unused_helper_007(x):
    """Scratch helper 7 from my notes (never called by the tasks)."""
    return x * 7 + torch.zeros_like(x)


def _unused_helper_008(x):
    """Scratch helper 8 from my notes (never called by the tasks)."""
    return x * 8 + torch.zeros_like(x)


def _unused_helper_009(x):
    """Scratch helper 9 from my notes (never called by the tasks)."""
    return x * 9 + torch.zeros_like(x)


def _unused_helper_010(x):
    """Scratch helper 10 from my notes (never called by the tasks)."""
    return x * 10 + torch.zeros_like(x)


def _unused_helper_011(x):
    """Scratch helper 11 from my notes (never called by the tasks)."""
    return x * 11 + torch.zeros_like(x)


def _unused_helper_012(x):
    """Scratch helper 12 from my notes (never called by the tasks)."""
    return x * 12 + torch.zeros_like(x)


def _unused_helper_013(x):
    """Scratch helper 13 from my notes (never called by the tasks)."""
    return x * 13 + torch.zeros_like(x)


def _unused_helper_014(x):
    """Scratch helper 14 from my notes (never called by the tasks)."""
    return x * 14 + torch.zeros_like(x)


def _unused_helper_015(x):
    """Scratch helper 15 from my notes (never called by the tasks)."""
    return x * 15 + torch.zeros_like(x)


def _unused_helper_016(x):
    """Scratch helper 16 from my notes (never called by the tasks)."""
    return x * 16 + torch.zeros_like(x)


def _unused_helper_017(x):
    """Scratch helper 17 from my notes (never called by the tasks)."""
    return x * 17 + torch.zeros_like(x)


def _unused_helper_018(x):
    """Scratch helper 18 from my notes (never called by the tasks)."""
    return x * 18 + torch.zeros_like(x)


def _unused_helper_019(x):
    """Scratch helper 19 from my notes (never called by the tasks)."""
    return x * 19 + torch.zeros_like(x)


def _unused_helper_020(x):
    """Scratch helper 20 from my notes (never called by the tasks)."""
    return x * 20 + torch.zeros_like(x)


def _unused_helper_021(x):
    """Scratch helper 21 from my notes (never called by the tasks)."""
    return x * 21 + torch.zeros_like(x)


def _unused_helper_022(x):
    """Scratch helper 22 from my notes (never called by the tasks)."""
    return x * 22 + torch.zeros_like(x)


def _unused_helper_023(x):
    """Scratch helper 23 from my notes (never called by the tasks)."""
    return x * 23 + torch.zeros_like(x)


def _unused_helper_024(x):
    """Scratch helper 24 from my notes (never called by the tasks)."""
    return x * 24 + torch.zeros_like(x)


def _unused_helper_025(x):
    """Scratch helper 25 from my notes (never called by the tasks)."""
    return x * 25 + torch.zeros_like(x)


def _unused_helper_026(x):
    """Scratch helper 26 from my notes (never called by the tasks)."""
    return x * 26 + torch.zeros_like(x)


def _unused_helper_027(x):
    """Scratch helper 27 from my notes (never called by the tasks)."""
    return x * 27 + torch.zeros_like(x)


def _unused_helper_028(x):
    """Scratch helper 28 from my notes (never called by the tasks)."""
    return x * 28 + torch.zeros_like(x)


def _unused_helper_029(x):
    """Scratch helper 29 from my notes (never called by the tasks)."""
    return x * 29 + torch.zeros_like(x)


def _unused_helper_030(x):
    """Scratch helper 30 from my notes (never called by the tasks)."""
    return x * 30 + torch.zeros_like(x)


def _unused_helper_031(x):
    """Scratch helper 31 from my notes (never called by the tasks)."""
    return x * 31 + torch.zeros_like(x)


def _unused_helper_032(x):
    """Scratch helper 32 from my notes (never called by the tasks)."""
    return x * 32 + torch.zeros_like(x)


def _unused_helper_033(x):
    """Scratch helper 33 from my notes (never called by the tasks)."""
    return x * 33 + torch.zeros_like(x)


def _unused_helper_034(x):
    """Scratch helper 34 from my notes (never called by the tasks)."""
    return x * 34 + torch.zeros_like(x)


def _unused_helper_035(x):
    """Scratch helper 35 from my notes (never called by the tasks)."""
    return x * 35 + torch.zeros_like(x)


def _unused_helper_036(x):
    """Scratch helper 36 from my notes (never called by the tasks)."""
    return x * 36 + torch.zeros_like(x)


def _unused_helper_037(x):
    """Scratch helper 37 from my notes (never called by the tasks)."""
    return x * 37 + torch.zeros_like(x)


def _unused_helper_038(x):
    """Scratch helper 38 from my notes (never called by the tasks)."""
    return x * 38 + torch.zeros_like(x)


def _unused_helper_039(x):
    """Scratch helper 39 from my notes (never called by the tasks)."""
    return x * 39 + torch.zeros_like(x)


def _unused_helper_040(x):
    """Scratch helper 40 from my notes (never called by the tasks)."""
    return x * 40 + torch.zeros_like(x)


def _unused_helper_041(x):
    """Scratch helper 41 from my notes (never called by the tasks)."""
    return x * 41 + torch.zeros_like(x)


def _unused_helper_042(x):
    """Scratch helper 42 from my notes (never called by the tasks)."""
    return x * 42 + torch.zeros_like(x)


def _unused_helper_043(x):
    """Scratch helper 43 from my notes (never called by the tasks)."""
    return x * 43 + torch.zeros_like(x)


def _unused_helper_044(x):
    """Scratch helper 44 from my notes (never called by the tasks)."""
    return x * 44 + torch.zeros_like(x)


def _unused_helper_045(x):
    """Scratch helper 45 from my notes (never called by the tasks)."""
    return x * 45 + torch.zeros_like(x)


def _unused_helper_046(x):
    """Scratch helper 46 from my notes (never called by the tasks)."""
    return x * 46 + torch.zeros_like(x)


def _unused_helper_047(x):
    """Scratch helper 47 from my notes (never called by the tasks)."""
    return x * 47 + torch.zeros_like(x)


def _unused_helper_048(x):
    """Scratch helper 48 from my notes (never called by the tasks)."""
    return x * 48 + torch.zeros_like(x)


def _unused_helper_049(x):
    """Scratch helper 49 from my notes (never called by the tasks)."""
    return x * 49 + torch.zeros_like(x)


def _unused_helper_050(x):
    """Scratch helper 50 from my notes (never called by the tasks)."""
    return x * 50 + torch.zeros_like(x)


def _unused_helper_051(x):
    """Scratch helper 51 from my notes (never called by the tasks)."""
    return x * 51 + torch.zeros_like(x)


def _unused_helper_052(x):
    """Scratch helper 52 from my notes (never called by the tasks)."""
    return x * 52 + torch.zeros_like(x)


def _unused_helper_053(x):
    """Scratch helper 53 from my notes (never called by the tasks)."""
    return x * 53 + torch.zeros_like(x)


def _unused_helper_054(x):
    """Scratch helper 54 from my notes (never called by the tasks)."""
    return x * 54 + torch.zeros_like(x)


def _unused_helper_055(x):
    """Scratch helper 55 from my notes (never called by the tasks)."""
    return x * 55 + torch.zeros_like(x)


def _unused_helper_056(x):
    """Scratch helper 56 from my notes (never called by the tasks)."""
    return x * 56 + torch.zeros_like(x)


def _unused_helper_057(x):
    """Scratch helper 57 from my notes (never called by the tasks)."""
    return x * 57 + torch.zeros_like(x)


def _unused_helper_058(x):
    """Scratch helper 58 from my notes (never called by the tasks)."""
    return x * 58 + torch.zeros_like(x)


def _unused_helper_059(x):
    """Scratch helper 59 from my notes (never called by the tasks)."""
    return x * 59 + torch.zeros_like(x)


def _unused_helper_060(x):
    """Scratch helper 60 from my notes (never called by the tasks)."""
    return x * 60 + torch.zeros_like(x)


def _unused_helper_061(x):
    """Scratch helper 61 from my notes (never called by the tasks)."""
    return x * 61 + torch.zeros_like(x)


def _unused_helper_062(x):
    """Scratch helper 62 from my notes (never called by the tasks)."""
    return x * 62 + torch.zeros_like(x)


def _unused_helper_063(x):
    """Scratch helper 63 from my notes (never called by the tasks)."""
    return x * 63 + torch.zeros_like(x)


def _unused_helper_064(x):
    """Scratch helper 64 from my notes (never called by the tasks)."""
    return x * 64 + torch.zeros_like(x)


def _unused_helper_065(x):
    """Scratch helper 65 from my notes (never called by the tasks)."""
    return x * 65 + torch.zeros_like(x)


def _unused_helper_066(x):
    """Scratch helper 66 from my notes (never called by the tasks)."""
    return x * 66 + torch.zeros_like(x)


def _unused_helper_067(x):
    """Scratch helper 67 from my notes (never called by the tasks)."""
    return x * 67 + torch.zeros_like(x)


def _unused_helper_068(x):
    """Scratch helper 68 from my notes (never called by the tasks)."""
    return x * 68 + torch.zeros_like(x)


def _unused_helper_069(x):
    """Scratch helper 69 from my notes (never called by the tasks)."""
    return x * 69 + torch.zeros_like(x)


def _unused_helper_070(x):
    """Scratch helper 70 from my notes (never called by the tasks)."""
    return x * 70 + torch.zeros_like(x)


def _unused_helper_071(x):
    """Scratch helper 71 from my notes (never called by the tasks)."""
    return x * 71 + torch.zeros_like(x)


def _unused_helper_072(x):
    """Scratch helper 72 from my notes (never called by the tasks)."""
    return x * 72 + torch.zeros_like(x)


def _unused_helper_073(x):
    """Scratch helper 73 from my notes (never called by the tasks)."""
    return x * 73 + torch.zeros_like(x)


def _unused_helper_074(x):
    """Scratch helper 74 from my notes (never called by the tasks)."""
    return x * 74 + torch.zeros_like(x)


def _unused_helper_075(x):
    """Scratch helper 75 from my notes (never called by the tasks)."""
    return x * 75 + torch.zeros_like(x)


def _unused_helper_076(x):
    """Scratch helper 76 from my notes (never called by the tasks)."""
    return x * 76 + torch.zeros_like(x)


def _unused_helper_077(x):
    """Scratch helper 77 from my notes (never called by the tasks)."""
    return x * 77 + torch.zeros_like(x)


def _unused_helper_078(x):
    """Scratch helper 78 from my notes (never called by the tasks)."""
    return x * 78 + torch.zeros_like(x)


def _unused_helper_079(x):
    """Scratch helper 79 from my notes (never called by the tasks)."""
    return x * 79 + torch.zeros_like(x)


def _unused_helper_080(x):
    """Scratch helper 80 from my notes (never called by the tasks)."""
    return x * 80 + torch.zeros_like(x)


def _unused_helper_081(x):
    """Scratch helper 81 from my notes (never called by the tasks)."""
    return x * 81 + torch.zeros_like(x)


def _unused_helper_082(x):
    """Scratch helper 82 from my notes (never called by the tasks)."""
    return x * 82 + torch.zeros_like(x)


def _unused_helper_083(x):
    """Scratch helper 83 from my notes (never called by the tasks)."""
    return x * 83 + torch.zeros_like(x)


def _unused_helper_084(x):
    """Scratch helper 84 from my notes (never called by the tasks)."""
    return x * 84 + torch.zeros_like(x)


def _unused_helper_085(x):
    """Scratch helper 85 from my notes (never called by the tasks)."""
    return x * 85 + torch.zeros_like(x)


def _unused_helper_086(x):
    """Scratch helper 86 from my notes (never called by the tasks)."""
    return x * 86 + torch.zeros_like(x)


def _unused_helper_087(x):
    """Scratch helper 87 from my notes (never called by the tasks)."""
    return x * 87 + torch.zeros_like(x)


def _unused_helper_088(x):
    """Scratch helper 88 from my notes (never called by the tasks)."""
    return x * 88 + torch.zeros_like(x)


def _unused_helper_089(x):
    """Scratch helper 89 from my notes (never called by the tasks)."""
    return x * 89 + torch.zeros_like(x)


def _unused_helper_090(x):
    """Scratch helper 90 from my notes (never called by the tasks)."""
    return x * 90 + torch.zeros_like(x)


def _unused_helper_091(x):
    """Scratch helper 91 from my notes (never called by the tasks)."""
    return x * 91 + torch.zeros_like(x)


def _unused_helper_092(x):
    """Scratch helper 92 from my notes (never called by the tasks)."""
    return x * 92 + torch.zeros_like(x)


def _unused_helper_093(x):
    """Scratch helper 93 from my notes (never called by the tasks)."""
    return x * 93 + torch.zeros_like(x)


def _unused_helper_094(x):
    """Scratch helper 94 from my notes (never called by the tasks)."""
    return x * 94 + torch.zeros_like(x)


def _unused_helper_095(x):
    """Scratch helper 95 from my notes (never called by the tasks)."""
    return x * 95 + torch.zeros_like(x)


def _unused_helper_096(x):
    """Scratch helper 96 from my notes (never called by the tasks)."""
    return x * 96 + torch.zeros_like(x)


def _unused_helper_097(x):
    """Scratch helper 97 from my notes (never called by the tasks)."""
    return x * 97 + torch.zeros_like(x)


def _unused_helper_098(x):
    """Scratch helper 98 from my notes (never called by the tasks)."""
    return x * 98 + torch.zeros_like(x)


def _unused_helper_099(x):
    """Scratch helper 99 from my notes (never called by the tasks)."""
    return x * 99 + torch.zeros_like(x)


def _unused_helper_100(x):
    """Scratch helper 100 from my notes (never called by the tasks)."""
    return x * 100 + torch.zeros_like(x)


def _unused_helper_101(x):
    """Scratch helper 101 from my notes (never called by the tasks)."""
    return x * 101 + torch.zeros_like(x)


def _unused_helper_102(x):
    """Scratch helper 102 from my notes (never called by the tasks)."""
    return x * 102 + torch.zeros_like(x)


def _unused_helper_103(x):
    """Scratch helper 103 from my notes (never called by the tasks)."""
    return x * 103 + torch.zeros_like(x)


def _unused_helper_104(x):
    """Scratch helper 104 from my notes (never called by the tasks)."""
    return x * 104 + torch.zeros_like(x)


def _unused_helper_105(x):
    """Scratch helper 105 from my notes (never called by the tasks)."""
    return x * 105 + torch.zeros_like(x)


def _unused_helper_106(x):
    """Scratch helper 106 from my notes (never called by the tasks)."""
    return x * 106 + torch.zeros_like(x)


def _unused_helper_107(x):
    """Scratch helper 107 from my notes (never called by the tasks)."""
    return x * 107 + torch.zeros_like(x)


def _unused_helper_108(x):
    """Scratch helper 108 from my notes (never called by the tasks)."""
    return x * 108 + torch.zeros_like(x)


def _unused_helper_109(x):
    """Scratch helper 109 from my notes (never called by the tasks)."""
    return x * 109 + torch.zeros_like(x)


def _unused_helper_110(x):
    """Scratch helper 110 from my notes (never called by the tasks)."""
    return x * 110 + torch.zeros_like(x)


def _unused_helper_111(x):
    """Scratch helper 111 from my notes (never called by the tasks)."""
    return x * 111 + torch.zeros_like(x)


def _unused_helper_112(x):
    """Scratch helper 112 from my notes (never called by the tasks)."""
    return x * 112 + torch.zeros_like(x)


def _unused_helper_113(x):
    """Scratch helper 113 from my notes (never called by the tasks)."""
    return x * 113 + torch.zeros_like(x)


def _unused_helper_114(x):
    """Scratch helper 114 from my notes (never called by the tasks)."""
    return x * 114 + torch.zeros_like(x)


def _unused_helper_115(x):
    """Scratch helper 115 from my notes (never called by the tasks)."""
    return x * 115 + torch.zeros_like(x)


def _unused_helper_116(x):
    """Scratch helper 116 from my notes (never called by the tasks)."""
    return x * 116 + torch.zeros_like(x)


def _unused_helper_117(x):
    """Scratch helper 117 from my notes (never called by the tasks)."""
    return x * 117 + torch.zeros_like(x)


def _unused_helper_118(x):
    """Scratch helper 118 from my notes (never called by the tasks)."""
    return x * 118 + torch.zeros_like(x)


def _unused_helper_119(x):
    """Scratch helper 119 from my notes (never called by the tasks)."""
    return x * 119 + torch.zeros_like(x)


def _unused_helper_120(x):
    """Scratch helper 120 from my notes (never called by the tasks)."""
    return x * 120 + torch.zeros_like(x)


def _unused_helper_121(x):
    """Scratch helper 121 from my notes (never called by the tasks)."""
    return x * 121 + torch.zeros_like(x)


def _unused_helper_122(x):
    """Scratch helper 122 from my notes (never called by the tasks)."""
    return x * 122 + torch.zeros_like(x)


def _unused_helper_123(x):
    """Scratch helper 123 from my notes (never called by the tasks)."""
    return x * 123 + torch.zeros_like(x)


def _unused_helper_124(x):
    """Scratch helper 124 from my notes (never called by the tasks)."""
    return x * 124 + torch.zeros_like(x)


def _unused_helper_125(x):
    """Scratch helper 125 from my notes (never called by the tasks)."""
    return x * 125 + torch.zeros_like(x)


def _unused_helper_126(x):
    """Scratch helper 126 from my notes (never called by the tasks)."""
    return x * 126 + torch.zeros_like(x)


def _unused_helper_127(x):
    """Scratch helper 127 from my notes (never called by the tasks)."""
    return x * 127 + torch.zeros_like(x)


def _unused_helper_128(x):
    """Scratch helper 128 from my notes (never called by the tasks)."""
    return x * 128 + torch.zeros_like(x)


def _unused_helper_129(x):
    """Scratch helper 129 from my notes (never called by the tasks)."""
    return x * 129 + torch.zeros_like(x)


def _unused_helper_130(x):
    """Scratch helper 130 from my notes (never called by the tasks)."""
    return x * 130 + torch.zeros_like(x)


def _unused_helper_131(x):
    """Scratch helper 131 from my notes (never called by the tasks)."""
    return x * 131 + torch.zeros_like(x)


def _unused_helper_132(x):
    """Scratch helper 132 from my notes (never called by the tasks)."""
    return x * 132 + torch.zeros_like(x)


def _unused_helper_133(x):
    """Scratch helper 133 from my notes (never called by the tasks)."""
    return x * 133 + torch.zeros_like(x)


def _unused_helper_134(x):
    """Scratch helper 134 from my notes (never called by the tasks)."""
    return x * 134 + torch.zeros_like(x)


def _unused_helper_135(x):
    """Scratch helper 135 from my notes (never called by the tasks)."""
    return x * 135 + torch.zeros_like(x)


def _unused_helper_136(x):
    """Scratch helper 136 from my notes (never called by the tasks)."""
    return x * 136 + torch.zeros_like(x)


def _unused_helper_137(x):
    """Scratch helper 137 from my notes (never called by the tasks)."""
    return x * 137 + torch.zeros_like(x)


def _unused_helper_138(x):
    """Scratch helper 138 from my notes (never called by the tasks)."""
    return x * 138 + torch.zeros_like(x)


def _unused_helper_139(x):
    """Scratch helper 139 from my notes (never called by the tasks)."""
    return x * 139 + torch.zeros_like(x)


def _unused_helper_140(x):
    """Scratch helper 140 from my notes (never called by the tasks)."""
    return x * 140 + torch.zeros_like(x)


def _unused_helper_141(x):
    """Scratch helper 141 from my notes (never called by the tasks)."""
    return x * 141 + torch.zeros_like(x)


def _unused_helper_142(x):
    """Scratch helper 142 from my notes (never called by the tasks)."""
    return x * 142 + torch.zeros_like(x)


def _unused_helper_143(x):
    """Scratch helper 143 from my notes (never called by the tasks)."""
    return x * 143 + torch.zeros_like(x)


def _unused_helper_144(x):
    """Scratch helper 144 from my notes (never called by the tasks)."""
    return x * 144 + torch.zeros_like(x)


def _unused_helper_145(x):
    """Scratch helper 145 from my notes (never called by the tasks)."""
    return x * 145 + torch.zeros_like(x)


def _unused_helper_146(x):
    """Scratch helper 146 from my notes (never called by the tasks)."""
    return x * 146 + torch.zeros_like(x)


def _unused_helper_147(x):
    """Scratch helper 147 from my notes (never called by the tasks)."""
    return x * 147 + torch.zeros_like(x)


def _unused_helper_148(x):
    """Scratch helper 148 from my notes (never called by the tasks)."""
    return x * 148 + torch.zeros_like(x)


def _unused_helper_149(x):
    """Scratch helper 149 from my notes (never called by the tasks)."""
    return x * 149 + torch.zeros_like(x)


def attention_scores(q, k):
    """Scaled dot-product scores.

    Line 0 of my notes on why we divide by sqrt(d).
    Line 1 of my notes on why we divide by sqrt(d).
    Line 2 of my notes on why we divide by sqrt(d).
    Line 3 of my notes on why we divide by sqrt(d).
    Line 4 of my notes on why we divide by sqrt(d).
    Line 5 of my notes on why we divide by sqrt(d).
    Line 6 of my notes on why we divide by sqrt(d).
    Line 7 of my notes on why we divide by sqrt(d).
    Line 8 of my notes on why we divide by sqrt(d).
    Line 9 of my notes on why we divide by sqrt(d).
    Line 10 of my notes on why we divide by sqrt(d).
    Line 11 of my notes on why we divide by sqrt(d).
    Line 12 of my notes on why we divide by sqrt(d).
    Line 13 of my notes on why we divide by sqrt(d).
    Line 14 of my notes on why we divide by sqrt(d).
    Line 15 of my notes on why we divide by sqrt(d).
    Line 16 of my notes on why we divide by sqrt(d).
    Line 17 of my notes on why we divide by sqrt(d).
    Line 18 of my notes on why we divide by sqrt(d).
    Line 19 of my notes on why we divide by sqrt(d).
    Line 20 of my notes on why we divide by sqrt(d).
    Line 21 of my notes on why we divide by sqrt(d).
    Line 22 of my notes on why we divide by sqrt(d).
    Line 23 of my notes on why we divide by sqrt(d).
    Line 24 of my notes on why we divide by sqrt(d).
    Line 25 of my notes on why we divide by sqrt(d).
    Line 26 of my notes on why we divide by sqrt(d).
    Line 27 of my notes on why we divide by sqrt(d).
    Line 28 of my notes on why we divide by sqrt(d).
    Line 29 of my notes on why we divide by sqrt(d).
    Line 30 of my notes on why we divide by sqrt(d).
    Line 31 of my notes on why we divide by sqrt(d).
    Line 32 of my notes on why we divide by sqrt(d).
    Line 33 of my notes on why we divide by sqrt(d).
    Line 34 of my notes on why we divide by sqrt(d).
    Line 35 of my notes on why we divide by sqrt(d).
    Line 36 of my notes on why we divide by sqrt(d).
    Line 37 of my notes on why we divide by sqrt(d).
    Line 38 of my notes on why we divide by sqrt(d).
    Line 39 of my notes on why we divide by sqrt(d).
    Line 40 of my notes on why we divide by sqrt(d).
    Line 41 of my notes on why we divide by sqrt(d).
    Line 42 of my notes on why we divide by sqrt(d).
    Line 43 of my notes on why we divide by sqrt(d).
    Line 44 of my notes on why we divide by sqrt(d).
    Line 45 of my notes on why we divide by sqrt(d).
    Line 46 of my notes on why we divide by sqrt(d).
    Line 47 of my notes on why we divide by sqrt(d).
    Line 48 of my notes on why we divide by sqrt(d).
    Line 49 of my notes on why we divide by sqrt(d).
    Line 50 of my notes on why we divide by sqrt(d).
    Line 51 of my notes on why we divide by sqrt(d).
    Line 52 of my notes on why we divide by sqrt(d).
    Line 53 of my notes on why we divide by sqrt(d).
    Line 54 of my notes on why we divide by sqrt(d).
    Line 55 of my notes on why we divide by sqrt(d).
    Line 56 of my notes on why we divide by sqrt(d).
    Line 57 of my notes on why we divide by sqrt(d).
    Line 58 of my notes on why we divide by sqrt(d).
    Line 59 of my notes on why we divide by sqrt(d).
    Line 60 of my notes on why we divide by sqrt(d).
    Line 61 of my notes on why we divide by sqrt(d).
    Line 62 of my notes on why we divide by sqrt(d).
    Line 63 of my notes on why we divide by sqrt(d).
    Line 64 of my notes on why we divide by sqrt(d).
    Line 65 of my notes on why we divide by sqrt(d).
    Line 66 of my notes on why we divide by sqrt(d).
    Line 67 of my notes on why we divide by sqrt(d).
    Line 68 of my notes on why we divide by sqrt(d).
    Line 69 of my notes on why we divide by sqrt(d).
    Line 70 of my notes on why we divide by sqrt(d).
    Line 71 of my notes on why we divide by sqrt(d).
    Line 72 of my notes on why we divide by sqrt(d).
    Line 73 of my notes on why we divide by sqrt(d).
    Line 74 of my notes on why we divide by sqrt(d).
    Line 75 of my notes on why we divide by sqrt(d).
    Line 76 of my notes on why we divide by sqrt(d).
    Line 77 of my notes on why we divide by sqrt(d).
    Line 78 of my notes on why we divide by sqrt(d).
    Line 79 of my notes on why we divide by sqrt(d).
    Line 80 of my notes on why we divide by sqrt(d).
    Line 81 of my notes on why we divide by sqrt(d).
    Line 82 of my notes on why we divide by sqrt(d).
    Line 83 of my notes on why we divide by sqrt(d).
    Line 84 of my notes on why we divide by sqrt(d).
    Line 85 of my notes on why we divide by sqrt(d).
    Line 86 of my notes on why we divide by sqrt(d).
    Line 87 of my notes on why we divide by sqrt(d).
    Line 88 of my notes on why we divide by sqrt(d).
    Line 89 of my notes on why we divide by sqrt(d).
    Line 90 of my notes on why we divide by sqrt(d).
    Line 91 of my notes on why we divide by sqrt(d).
    Line 92 of my notes on why we divide by sqrt(d).
    Line 93 of my notes on why we divide by sqrt(d).
    Line 94 of my notes on why we divide by sqrt(d).
    Line 95 of my notes on why we divide by sqrt(d).
    Line 96 of my notes on why we divide by sqrt(d).
    Line 97 of my notes on why we divide by sqrt(d).
    Line 98 of my notes on why we divide by sqrt(d).
    Line 99 of my notes on why we divide by sqrt(d).
    Line 100 of my notes on why we divide by sqrt(d).
    Line 101 of my notes on why we divide by sqrt(d).
    Line 102 of my notes on why we divide by sqrt(d).
    Line 103 of my notes on why we divide by sqrt(d).
    Line 104 of my notes on why we divide by sqrt(d).
    Line 105 of my notes on why we divide by sqrt(d).
    Line 106 of my notes on why we divide by sqrt(d).
    Line 107 of my notes on why we divide by sqrt(d).
    Line 108 of my notes on why we divide by sqrt(d).
    Line 109 of my notes on why we divide by sqrt(d).
    Line 110 of my notes on why we divide by sqrt(d).
    Line 111 of my notes on why we divide by sqrt(d).
    Line 112 of my notes on why we divide by sqrt(d).
    Line 113 of my notes on why we divide by sqrt(d).
    Line 114 of my notes on why we divide by sqrt(d).
    Line 115 of my notes on why we divide by sqrt(d).
    Line 116 of my notes on why we divide by sqrt(d).
    Line 117 of my notes on why we divide by sqrt(d).
    Line 118 of my notes on why we divide by sqrt(d).
    Line 119 of my notes on why we divide by sqrt(d).
    """
    d = q.size(-1)
    return q @ k.transpose(-2, -1) / math.sqrt(d)


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))
    row_max = scores.amax(dim=-1, keepdim=True)
    row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max)).detach()
    exp = torch.exp(scores - row_max)
    total = exp.sum(dim=-1, keepdim=True)
    total = total + (total == 0).to(total.dtype)
    return exp / total


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = attention_scores(q, k)
    weights = masked_softmax(scores, mask)
    return weights @ v, weights


def causal_mask(size_q, size_k=None, device=None):
    size_k = size_q if size_k is None else size_k
    return torch.ones(size_q, size_k, dtype=torch.bool, device=device).tril()


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        q = self.W_q(x)
        k = self.W_k(x)
        v = self.W_v(x)
        return scaled_dot_product_attention(q, k, v, mask)


def split_heads(x, num_heads):
    B, S, E = x.shape
    if E % num_heads:
        raise ValueError("not divisible")
    return x.reshape(B, S, num_heads, E // num_heads).transpose(1, 2)


def merge_heads(x):
    B, H, S, Dh = x.shape
    return x.transpose(1, 2).reshape(B, S, H * Dh)


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError("embed_dim must be divisible by num_heads")
        self.num_heads = num_heads
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        q = split_heads(self.W_q(query), self.num_heads)
        k = split_heads(self.W_k(key), self.num_heads)
        v = split_heads(self.W_v(value), self.num_heads)
        weights = masked_softmax(attention_scores(q, k), mask)
        heads = self.dropout(weights) @ v
        return self.W_o(merge_heads(heads)), weights


class AttentionBlock(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.norm = nn.LayerNorm(embed_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        attended, weights = self.attn(x, mask=mask)
        return self.norm(x + self.dropout(attended)), weights


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    matrix = torch.as_tensor(weights).detach().to("cpu", torch.float64)
    if ax is None:
        _, ax = plt.subplots()
    image = ax.imshow(matrix.T.numpy(), cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto")
    ax.set_xticks(range(len(query_tokens)), labels=list(query_tokens))
    ax.set_yticks(range(len(key_tokens)), labels=list(key_tokens))
    ax.set_xlabel("query position")
    ax.set_ylabel("key position")
    ax.figure.colorbar(image, ax=ax)
    if title:
        ax.set_title(title)
    return ax
