# The Ruby engine's driver, evaluated once (as sandbox_driver.rb) when the post-initialisation
# image is made, so it is part of every run and every context. The host calls
#   SandboxDriver.execute("CODE_HEX", "CWD_HEX", "ENV_HEX", RESEED)
# through rb-eval-string-protect and reads the returned String: the JSON envelope
# {results?, error?, cwd} (no Ruby value handle outlives the call). Arguments are hex-encoded
# UTF-8; ENV_HEX is "NAME=VALUE" pairs separated by NUL bytes.
#
# REPL semantics: the code is evaluated in TOPLEVEL_BINDING, like irb: local variables, methods,
# classes, constants and globals persist across calls in a context. The value of the last
# expression is the result: nil -> none; a Hash or Array that JSON can generate -> json;
# anything else -> its #inspect as text. Any Exception (SystemExit from `exit` included) becomes
# an error with the exception's class name, message and backtrace.

# What native `ruby` loads at start-up (its gem prelude). Under ruby.wasm's ruby-init, CRuby 4.0
# returns before that prelude has run (Gem is defined but empty, as ruby.wasm's own JavaScript
# glue notes), so the driver loads it here, into the image: RubyGems puts the bundled gems (csv,
# base64, abbrev, ...) on the load path, and error_highlight, did_you_mean and syntax_suggest
# extend exceptions as they do natively. Each require is a no-op when it already ran.
if defined?(Gem)
  require 'rubygems'
  require 'bundled_gems'
end
require 'error_highlight' if defined?(ErrorHighlight)
require 'did_you_mean' if defined?(DidYouMean)
require 'syntax_suggest/core_ext' if defined?(SyntaxSuggest)
require 'json'

module SandboxDriver
  DRIVER_FILE = 'sandbox_driver.rb'
  SOURCE_FILE = '(sandbox)'
  UTF8 = Encoding::UTF_8

  def self.decode(hex)
    [hex].pack('H*').force_encoding(UTF8)
  end

  # Valid UTF-8 for the envelope (invalid bytes become U+FFFD).
  def self.utf8(value)
    s = value.to_s
    s = s.dup.force_encoding(UTF8) if s.encoding == Encoding::BINARY
    s.encode(UTF8, invalid: :replace, undef: :replace, replace: "\uFFFD")
  end

  def self.result_of(value)
    if value.is_a?(Hash) || value.is_a?(Array)
      begin
        JSON.generate(value)
        return { json: value }
      rescue StandardError
        # Not representable as JSON (NaN, invalid strings, deep nesting): shown as text.
      end
    end
    { text: utf8(value.inspect) }
  end

  def self.error_of(e)
    trace = (e.backtrace || []).reject { |line| line.start_with?(DRIVER_FILE, 'eval:', '-e:') }
    error = { name: utf8(e.class.name || e.class.inspect), message: utf8(e.message),
              traceback: trace.map { |line| utf8(line) } }
    location = (e.backtrace_locations || []).find { |l| l.path == SOURCE_FILE }
    line = location&.lineno
    line ||= Regexp.last_match(1).to_i if e.is_a?(SyntaxError) && e.message =~ /\A\(sandbox\):(\d+):/
    error[:lineNumber] = line if line
    error
  end

  def self.replace_env(pairs)
    env = {}
    pairs.split("\0").each do |pair|
      name, value = pair.split('=', 2)
      env[name] = value || ''
    end
    # A plain Hash of UTF-8 strings, as upstream: the real ENV tags values as binary.
    Object.send(:remove_const, :ENV)
    Object.const_set(:ENV, env)
  end

  def self.flush
    $stdout.flush
    $stderr.flush
  rescue StandardError
    # A stream the code closed or replaced: nothing to flush.
  end

  def self.execute(code_hex, cwd_hex, env_hex, reseed)
    Random.srand if reseed
    replace_env(decode(env_hex))
    cwd = decode(cwd_hex)
    begin
      Dir.chdir(cwd) unless cwd.empty?
    rescue SystemCallError
      # The directory is gone or not reachable: stay where we are.
    end
    out = {}
    begin
      value = TOPLEVEL_BINDING.eval(decode(code_hex), SOURCE_FILE, 1)
      out[:results] = value.nil? ? [] : [result_of(value)]
    rescue Exception => e # rubocop:disable Lint/RescueException -- every guest failure is a value
      out[:error] = error_of(e)
    ensure
      flush
    end
    out[:cwd] = begin
      utf8(Dir.pwd)
    rescue SystemCallError
      ''
    end
    JSON.generate(out)
  end
end
