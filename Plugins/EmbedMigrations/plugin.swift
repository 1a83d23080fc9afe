import Foundation
import PackagePlugin

/// Every `migrations/NNNN_name.sql`, in name order, compiled into PlannerStore as one generated list
/// (`Migrations.all`), and what each schema version's file holds computed from them (`SchemaData.swift`:
/// its objects, fingerprint and cookie, by planner-schema-data): a new migration is a new file there and
/// nothing else.
@main struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let package = context.package.directoryURL
        let folder = package.appending(path: "migrations")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let script = package.appending(path: "Plugins/EmbedMigrations/embed-migrations.sh")
        let output = context.pluginWorkDirectoryURL.appending(path: "MigrationFiles.swift")
        let schemaData = context.pluginWorkDirectoryURL.appending(path: "SchemaData.swift")
        let tool = try context.tool(named: "planner-schema-data").url
        // The files are inputs, so an edited one is embedded again; a file added or removed is seen because
        // Plugins/EmbedMigrations/migrations links to the folder: SwiftPM plans the build again (and calls
        // this again) when the listing of a target's folder changes, and only then.
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) migrations",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [script.path, output.path] + files.map(\.path),
                inputFiles: [script] + files,
                outputFiles: [output]),
            .buildCommand(
                displayName: "Computing the schema data of \(files.count) migrations",
                executable: tool,
                arguments: [schemaData.path] + files.map(\.path),
                inputFiles: [tool] + files,
                outputFiles: [schemaData]),
        ]
    }
}
