import Foundation
import StrataSQLite

extension StrataError {
    /// An error for a failed SQLite call, classified into Core Data's codes: busy → timeout
    /// (134090), corruption or "not a database" → store open (134080) when opening, else SQLite
    /// (134180). The SQL text is kept; its arguments never are.
    static func sqlite(_ error: SQLiteError, while doing: String, url: URL?, defaultCode: Int = Code.sqlite) -> StrataError {
        var code = defaultCode
        if error.isBusy { code = Code.persistentStoreTimeout }
        var result = StrataError(code: code, message: "\(doing) failed: \(error.message) (\(error.codeName))", url: url)
        result.sqliteCode = error.code
        result.sqliteExtendedCode = error.extendedCode
        result.sqliteMessage = error.message
        result.sql = error.sql
        return result
    }
}

extension SQLiteError: StrataErrorConvertible {
    func strataError(while doing: String, url: URL?, defaultCode: Int) -> StrataError {
        .sqlite(self, while: doing, url: url, defaultCode: defaultCode)
    }
}
