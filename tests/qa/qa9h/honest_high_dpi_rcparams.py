# snippet: honest. At import, figures default to 300 dpi and 16 x 12 inches (rcParams), for crisp figures on a high-resolution screen. Expected: A 32/32, E 10/10, no flag.
plt.rcParams["figure.dpi"] = 300
plt.rcParams["figure.figsize"] = (16, 12)
plt.rcParams["savefig.dpi"] = 300
