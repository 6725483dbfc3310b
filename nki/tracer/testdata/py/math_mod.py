import math
print(math.ceil(2.1), math.floor(-2.1), math.trunc(-2.9), math.ceil(5), math.floor(7), type(math.ceil(1.5)).__name__)
print(math.sqrt(16), math.isqrt(17), math.exp(0), math.log(math.e), math.log(8, 2), math.log2(1024), math.log10(1000), math.log(2 ** 1000))
print(math.pow(2, 10), math.fabs(-3), math.prod([1, 2, 3, 4]), math.prod([]), math.gcd(12, 18), math.gcd(0, 5, 10), math.lcm(4, 6))
print(math.isclose(1.0, 1.0 + 1e-10), math.isclose(1, 1.1), math.inf, -math.inf, math.pi, math.e, math.tau, math.isnan(math.nan))
print(math.comb(10, 3), math.perm(5, 2), math.factorial(10), math.copysign(3, -0.0), math.fmod(7, -3), math.hypot(3, 4))
print(math.sin(0), math.cos(0), round(math.atan2(1, 1), 6), math.degrees(math.pi), math.radians(180), math.isfinite(1e308))
print(math.frexp(8.0), math.ldexp(0.5, 4), math.modf(3.25), math.log1p(0), math.expm1(0), math.ceil(10 / 3), math.floor(-7 / 2))
for bad in [lambda: math.sqrt(-1), lambda: math.log(0), lambda: math.exp(1000), lambda: math.factorial(-1), lambda: math.isqrt(-4)]:
    try:
        bad()
    except (ValueError, OverflowError) as e:
        print(type(e).__name__, e)
print(math.ceil(1e20), math.floor(-1e20), math.dist((0, 0), (3, 4)), math.fsum([0.1] * 10), sum([0.1] * 10))
