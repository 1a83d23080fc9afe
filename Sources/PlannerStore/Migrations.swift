/// The schema's only source is `migrations/*.sql`, embedded into the binary by SwiftPM
/// (`.embedInCode` in Package.swift). Add each new file in both places; never edit a shipped one.
enum Migrations {
    static let all: [(version: Int32, name: String, sql: [UInt8])] = [
        (1, "0001_initial.sql", PackageResources._001_initial_sql),
        (2, "0002_delivery.sql", PackageResources._002_delivery_sql),
        (3, "0003_settings.sql", PackageResources._003_settings_sql),
        (4, "0004_record_index.sql", PackageResources._004_record_index_sql),
        (5, "0005_study_settings.sql", PackageResources._005_study_settings_sql),
        (6, "0006_notification_actions.sql", PackageResources._006_notification_actions_sql),
        (7, "0007_request_states.sql", PackageResources._007_request_states_sql),
    ]

    static var latestVersion: Int32 { all.last!.version }
}
