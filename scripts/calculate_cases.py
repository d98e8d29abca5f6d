"""Writes testdata/tau2/calculate.cases: what Python answers for τ²'s `calculate` tool on expressions a model
might send (τ²'s tool is `str(round(float(eval(expression)), 2))` after a character check)."""
import platform

exprs = r"""2 + 2
349.99 * 2
(1200 - 350) / 2
100 * 0.15
54.04 + 41.64
1,000 + 5
2^3
$100 - 20
2 ** 10
2**-1
-2 ** 2
2 ** 3 ** 2
7 // 2
-7 // 2
7.5 // 2
-7.5 // 2
7 // -2.0
1 / 3
2 / 3
10 / 4
1 / 0
1.0 / 0
1 // 0
1.0 // 0
0 ** -1
0.0 ** -2
(-8) ** 0.5
(-8) ** (1/3)
10.0 ** 400
10 ** 30 / 10 ** 28
1e5
1 2
012
00 + 5
0.5 + .5
5. + 1
1..5
1.2.3
.
()
() + ()
() * 3
() + 1
-()
(1)(2)
2(3)
(1
1)
((2 + 3) * (4 - 1))
  5 + 5
5 +

+5
--5
+-+5
3 * -2
0.1 + 0.2
2.675 * 1
1.005 * 1
0.125
0.375
0.001
-0.001
99999999999999999.0
12345678901234567890 * 10
1e-5
0.00001
123456789012345.678
1234567890123456.7
(100 - 20) * 0.9 + 15.5
1000000 * 1000000 * 1000000
2 ** 100
479.5 + 1088.12 - 25
(2)
((((1))))
3 / (2 - 2.0)
1 - - 1
4 * (5
5 * ()
() * 2.0
() / 2
2 ** ()
1 + (2)(3)
1 + 2 ) * 3
"""
out = [
    "# τ²'s calculate: each line is an expression, a tab, and what CPython " + platform.python_version() + " gives for",
    "# str(round(float(eval(expression)), 2)) (`= text`) or the error's text (`! text`), after τ²'s character check.",
    "# Regenerate: python3 -W ignore scripts/calculate_cases.py > testdata/tau2/calculate.cases",
]
for e in exprs.split("\n")[:-1]:
    try:
        if not all(c in "0123456789+-*/(). " for c in e):
            raise ValueError("Invalid characters in expression")
        r = "= " + str(round(float(eval(e, {"__builtins__": None}, {})), 2))
    except Exception as x:
        r = "! " + str(x)
    out.append(e + "\t" + r)
print("\n".join(out))
