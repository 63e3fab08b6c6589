-- wrk script: POST /deployments where every request's template differs (a comment line with a
-- per-thread counter), so neither the request handler nor anything else can reuse a parsed spec.
local f = assert(io.open(os.getenv("BENCH_API_BODY"), "r"))
local body = f:read("*a")
f:close()
-- The body is {"template": "..."}: the comment goes in before the string's closing quote.
local close = body:match(".*()\"")
local prefix, suffix = body:sub(1, close - 1), body:sub(close)
local threads = 0
local counter = 0

function setup(thread)
   threads = threads + 1
   thread:set("tid", threads)
end

function request()
   counter = counter + 1
   local text = prefix .. "\\n# distinct " .. tostring(tid) .. "-" .. counter .. suffix
   return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, text)
end
