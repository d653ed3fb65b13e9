-- A small JSON POST, for the bare server.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"code":"123456"}'
