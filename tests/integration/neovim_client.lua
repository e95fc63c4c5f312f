-- A headless Neovim as toolc server's client (tests/integration/neovim.rs).
--
-- Run as `nvim --headless --clean -u NONE -c "lua dofile(...)"` with
--   TOOLC_NVIM_SERVER    the toolc binary
--   TOOLC_NVIM_ROOT      the workspace folder
--   TOOLC_NVIM_MANIFEST  the file to open
--   TOOLC_NVIM_OUT       where to write what Neovim received, as JSON
-- It opens the manifest, starts `toolc server` on its buffer with Neovim's
-- own LSP client, waits until the buffer has diagnostics, writes them with
-- Neovim's version and quits. Exit code 0: written; anything else: failed
-- (the reason on standard error).
--
-- Works on Neovim 0.7 (vim.lsp.start_client + buf_attach_client) and on
-- later versions (vim.lsp.start, from 0.8).

local TIMEOUT_MS = 30000

local function fail(message)
  io.stderr:write('\nneovim_client.lua: ' .. message .. '\n')
  -- The LSP log, where Neovim puts what the server wrote on stderr and any
  -- error of its own client.
  local ok, path = pcall(vim.lsp.get_log_path)
  if ok and path and vim.fn.filereadable(path) == 1 then
    io.stderr:write('--- ' .. path .. '\n')
    io.stderr:write(table.concat(vim.fn.readfile(path), '\n') .. '\n')
  end
  vim.cmd('cquit 1')
end

local function main()
  local server = assert(os.getenv('TOOLC_NVIM_SERVER'), 'TOOLC_NVIM_SERVER is not set')
  local root = assert(os.getenv('TOOLC_NVIM_ROOT'), 'TOOLC_NVIM_ROOT is not set')
  local manifest = assert(os.getenv('TOOLC_NVIM_MANIFEST'), 'TOOLC_NVIM_MANIFEST is not set')
  local out = assert(os.getenv('TOOLC_NVIM_OUT'), 'TOOLC_NVIM_OUT is not set')

  vim.lsp.set_log_level('warn')
  vim.cmd('edit ' .. vim.fn.fnameescape(manifest))
  local bufnr = vim.api.nvim_get_current_buf()

  local config = { name = 'toolc', cmd = { server, 'server' }, root_dir = root }
  if vim.lsp.start then
    -- 0.8 and later: starts the client and attaches the current buffer.
    assert(vim.lsp.start(config), 'vim.lsp.start did not start toolc server')
  else
    local client_id = assert(vim.lsp.start_client(config), 'vim.lsp.start_client failed')
    assert(vim.lsp.buf_attach_client(bufnr, client_id), 'buf_attach_client failed')
  end

  local arrived = vim.wait(TIMEOUT_MS, function()
    return #vim.diagnostic.get(bufnr) > 0
  end, 50)
  if not arrived then
    fail(('no diagnostics for %s within %d ms'):format(manifest, TIMEOUT_MS))
    return
  end

  local clients = {}
  for _, client in pairs(vim.lsp.get_active_clients()) do
    table.insert(clients, { name = client.name, offset_encoding = client.offset_encoding })
  end
  local v = vim.version()
  local report = {
    nvim = ('%d.%d.%d'):format(v.major, v.minor, v.patch),
    clients = clients,
    -- As Neovim holds them: 0-based lines, 0-based byte columns.
    diagnostics = vim.diagnostic.get(bufnr),
  }
  vim.fn.writefile({ vim.fn.json_encode(report) }, out)
  vim.cmd('qa!')
end

local ok, err = pcall(main)
if not ok then
  fail(tostring(err))
end
