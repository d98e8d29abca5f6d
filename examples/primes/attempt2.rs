let is_prime = |n: i64| n > 1 && (2..n).all(|d| n % d != 0);
xs.iter().copied().filter(|&n| is_prime(n)).collect()
