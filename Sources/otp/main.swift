import Foundation
import OTPHTTP

// `otp COMMAND [options]`: each command lives in its own file and returns an exit status.

let usage = """
    usage: otp COMMAND [options]   (otp COMMAND --help for a command's options; otp --version)
      serve                         run the verification server
      migrate                       bring a store's schema up to this otp's (--dry-run lists the steps)
      backup                        copy a SQLite store while it is in use, into a new file
      demo                          the whole system on one terminal screen
      start, check, resend,
      status, cancel                call a running server's API
      token verify                  check a hosted page's approval token offline
      totp                          enrol and check authenticator-app factors on a running server
    """

let arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.first ?? ""
let rest = Array(arguments.dropFirst())
let status: Int32
switch command {
case "serve":
    status = await ServeCommand.main(rest)
case "migrate":
    status = await MigrateCommand.main(rest)
case "backup":
    status = await BackupCommand.main(rest)
case "demo":
    status = await DemoCommand.main(rest)
case "token":
    status = await TokenCommand.main(rest)
case "totp":
    status = await TOTPCommand.main(rest)
case _ where ClientCommands.names.contains(command):
    status = await ClientCommands.main(command, rest)
case "--version", "version":
    print("otp \(BuildInfo.description)")
    status = 0
case "help", "--help", "-h":
    print(usage)
    status = 0
default:
    printError(command.isEmpty ? usage : "otp: unknown command \(command) (see otp --help)")
    status = 2
}
exit(status)
