// The `strata` tool: `strata generate <model> --output <folder>` (see StrataCommand).

import Foundation
import StrataCodeGeneration

let result = StrataCommand.run(Array(CommandLine.arguments.dropFirst()))
FileHandle.standardOutput.write(Data(result.output.utf8))
FileHandle.standardError.write(Data(result.errors.utf8))
exit(result.status)
