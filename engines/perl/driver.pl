# The Perl engine's driver, evaluated once when the post-initialisation image is made (so it is
# part of every run and every context). The host calls
#   SandboxDriver::execute(CODE_HEX, CWD_HEX, ENV_HEX, RESEED)
# through zeroperl_eval and reads the JSON envelope {results?, error?, cwd} from
# $SandboxDriver::reply. Arguments are hex-encoded UTF-8; ENV_HEX is "NAME=VALUE" pairs
# separated by NUL bytes. RESEED is a seed for srand drawn by the host from its CSPRNG on the
# first call of each copy of the image or of a snapshot, or "" (srand() without a seed would
# use the clock, which copies restored within one millisecond share).
#
# REPL semantics: the code is a string eval in package main, so `our` variables, subs and loaded
# modules persist across calls in a context while `my` variables do not; the value of the last
# statement (scalar context) is the result: undef -> none, an ARRAY or HASH reference that JSON
# can encode -> json, anything else -> text (plain stringification, strings unquoted).
package SandboxDriver;

use strict;
use warnings;
use JSON::PP ();
use Cwd ();
use Scalar::Util ();

binmode(STDOUT, ':utf8');
binmode(STDERR, ':utf8');

our $reply = '';
my $json = JSON::PP->new->canonical->allow_nonref;
my $value_json = JSON::PP->new->canonical->allow_nonref;

sub decode_hex {
  my $s = pack('H*', $_[0]);
  utf8::decode($s);
  return $s;
}

sub error_of {
  my ($err) = @_;
  my $name = Scalar::Util::blessed($err) ? ref($err) : 'PerlError';
  my $message = "$err";
  $message =~ s/\n+\z//;
  my %error = (name => $name, message => $message, traceback => []);
  $error{lineNumber} = $1 + 0 if $message =~ / at \(sandbox\) line (\d+)\.?\z/;
  return \%error;
}

sub result_of {
  my ($value) = @_;
  return [] unless defined $value;
  my $type = ref $value;
  if (($type eq 'ARRAY' || $type eq 'HASH')) {
    my $ok = eval { $value_json->encode($value); 1 };
    return [{json => $value}] if $ok;
  }
  return [{text => "$value"}];
}

sub execute {
  my ($code_hex, $cwd_hex, $env_hex, $reseed) = @_;
  $reply = '';
  srand($reseed) if length $reseed;
  # A plain hash: %ENV's magic would call setenv with character strings ("Wide character").
  my %env;
  for my $pair (split /\0/, decode_hex($env_hex)) {
    my ($name, $value) = split /=/, $pair, 2;
    $env{$name} = $value;
  }
  *main::ENV = \%env;
  my $cwd = decode_hex($cwd_hex);
  chdir($cwd) if length $cwd;
  my ($value, $error) = SandboxDriver::User::run("#line 1 \"(sandbox)\"\n" . decode_hex($code_hex));
  my %out;
  if (ref $error || (defined $error && $error ne '')) {
    $out{error} = error_of($error);
  } else {
    $out{results} = result_of($value);
  }
  STDOUT->flush();
  STDERR->flush();
  $out{cwd} = Cwd::getcwd() // '';
  $reply = $json->encode(\%out);
  return;
}

# caller() sees the guest's code as the whole program, as in a script run by perl: the frames
# below it (this driver's, the host's eval) are hidden. Carp asks this override too, so croak
# and carp name the guest's lines (natively, a croak whose callers are all in one package
# shows a backtrace) instead of the driver's. Called from package DB so that @DB::args is set
# for Carp's argument lists. docs/languages.md#perl.
sub hidden_frame {
  my ($height) = @_;
  for my $h (1 .. $height) {
    my ($package) = CORE::caller($h + 1);
    return 1 if !defined $package || $package =~ /\ASandboxDriver(?:::|\z)/;
  }
  return 0;
}

{
  no warnings 'once';
  *CORE::GLOBAL::caller = sub (;$) {
    my $height = @_ ? $_[0] : 0;
    return if SandboxDriver::hidden_frame($height + 1);
    package DB;
    my @frame = CORE::caller($height + 1);
    return unless @frame;
    return $frame[0] unless wantarray;
    return @_ ? @frame : @frame[0 .. 2];
  };
}

# Compiled without strict and warnings, in package main: the string eval inherits both.
package SandboxDriver::User;
no strict;
no warnings;

sub run {
  local $SandboxDriver::User::source = $_[0];
  @_ = ();
  my $value = eval "package main;\n" . $SandboxDriver::User::source;
  return ($value, $@);
}

package main;
1;
