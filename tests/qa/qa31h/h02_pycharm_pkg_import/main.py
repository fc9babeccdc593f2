from hw.attention import *
