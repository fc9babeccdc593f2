# snippet: honest. At import, plt.style.use("dark_background") (a student who works in a dark theme); plot_attention still uses Blues, darker = more weight. Expected: A 32/32, E 10/10, no flag.
plt.style.use("dark_background")
