# OTPKit: `make demo` runs the product on Linux; `make test` runs every test.
.PHONY: demo test deps build lint format bench bench-all bench-postgres-ceiling bench-engine fraud-sim reliability release dashboard-screenshot clean

demo: deps
	swift build -c release --product otp
	.build/release/otp demo $(ARGS)

test: deps
	bash scripts/test.sh

deps:
	bash scripts/bootstrap.sh

build: deps
	swift build

lint:
	swift format lint --strict --recursive --parallel Sources Tests Stubs Examples Benchmarks Fuzz Plugins Package.swift

format:
	swift format format --in-place --recursive --parallel Sources Tests Stubs Examples Benchmarks Fuzz Plugins Package.swift

bench-engine: deps
	bash scripts/bench-engine.sh

# A simulated day of SMS pumping against the guard, on the memory and SQLite stores (not timed).
fraud-sim: deps
	swift build -c release --product FraudSim
	.build/release/FraudSim $(ARGS)

bench: deps
	bash scripts/bench-http.sh

# The HTTP benchmark on each store in turn.
bench-all: deps
	OTP_BENCH_STORE=memory bash scripts/bench-http.sh
	OTP_BENCH_STORE=sqlite bash scripts/bench-http.sh
	OTP_BENCH_STORE=redis bash scripts/bench-http.sh
	OTP_BENCH_STORE=postgres bash scripts/bench-http.sh
	OTP_BENCH_STORE=postgres OTP_BENCH_SPREAD=1000 OTP_BENCH_STORE_CONNECTIONS=32 OTP_BENCH_FLOOR_CONNECTIONS=0 \
	  bash scripts/bench-http.sh
	OTP_BENCH_STORE=postgres OTP_BENCH_SPREAD=1000 OTP_BENCH_STORE_CONNECTIONS=32 OTP_BENCH_FLOOR_CONNECTIONS=0 \
	  OTP_BENCH_POSTGRES_OPTIONS="-c synchronous_commit=off" bash scripts/bench-http.sh
	OTP_BENCH_SPREAD=1000 bash scripts/bench-postgres-ceiling.sh

# What PostgreSQL itself allows: pgbench runs a check's and a start's statements beside the bare server.
bench-postgres-ceiling: deps
	bash scripts/bench-postgres-ceiling.sh

# otp with the Swift runtime linked in, and its Debian package (.build/release-package/).
release: deps
	bash scripts/release.sh

# The Grafana dashboard's panels drawn from a real run (docs/screenshots/dashboard.png).
dashboard-screenshot: deps
	swift build --product otp
	python3 -m pip show -q matplotlib >/dev/null 2>&1 || python3 -m pip install -q matplotlib
	python3 scripts/dashboard_screenshot.py "$$(swift build --show-bin-path)/otp"

reliability: deps
	bash scripts/reliability.sh

clean:
	rm -rf .build
