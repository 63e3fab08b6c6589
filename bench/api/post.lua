-- wrk script: POST /deployments with the small template prepared by bench/api/run.
local f = assert(io.open(os.getenv("BENCH_API_BODY"), "r"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"
