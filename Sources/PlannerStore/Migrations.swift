/// The schema's only source is `migrations/*.sql`. The EmbedMigrations build plugin compiles every file
/// there into `Migrations.all`, in name order (version = the file's number): adding a migration is adding
/// its file (the plugin also computes its fingerprint: SchemaData.swift); never edit a shipped one
/// (SchemaCheckTests pins every shipped version's fingerprint).
package enum Migrations {
    package static var latestVersion: Int32 { all.last!.version }
}

package struct Migration {
    package let version: Int32
    package let name: String
    package let sql: String
}
