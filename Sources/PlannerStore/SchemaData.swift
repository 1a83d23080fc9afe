// swift-format-ignore-file
// Written by `scripts/schema-data` from migrations/ (SchemaCheckTests checks it): do not edit by hand.
extension PlannerDatabase {
    static let plannerObjects = [
        "anki_read", "app_open", "app_open_event", "app_open_events", "app_open_local_date", "calendar_file",
        "calendar_file_day", "delivered_notifications", "device", "device_self", "devices", "event", "event_at",
        "event_conflict", "event_day_rule", "event_kind_stamp", "event_plan_zone", "event_stamp", "event_unpublished",
        "events", "notification_action", "notification_actions", "pause", "pause_open", "pauses", "pending_requests",
        "plan", "register", "request", "request_cap_on_insert", "request_cap_on_update", "request_changed_at",
        "request_delivering", "request_fire_at", "request_history", "request_pending_fire_at",
        "request_pending_identifier", "request_record", "request_slot_day", "request_state",
        "request_state_known_on_insert", "request_state_known_on_update", "request_state_transition",
        "request_states", "request_transition", "setting", "settings", "skipped_date", "skipped_dates", "sync_file",
    ]

    static let schemaFingerprints: [UInt64] = [  // by schema version, from 0
        0xCBF2_9CE4_8422_2325,  // 0
        0x880B_A633_A7F6_E578,  // 1
        0x1691_E2D7_DA61_A0F0,  // 2
        0x0A23_0C33_3B7A_1983,  // 3
        0x558B_9EEC_404F_AA42,  // 4
        0x558B_9EEC_404F_AA42,  // 5
        0x4018_DFA2_E550_B7ED,  // 6
        0x5301_6A4D_6704_A5D6,  // 7
        0xB629_37D0_96F7_37A9,  // 8
        0x700F_1D84_DA2B_B35E,  // 9
        0xDDDB_2A99_5004_A1F8,  // 10
        0x3F4B_14B8_771E_DF5F,  // 11
        0x3AA7_F4D5_A91C_0385,  // 12
        0x435D_3C16_547B_61B2,  // 13
    ]

    /// `PRAGMA schema_version` after migrations 1…version, by version from 0.
    static let schemaCookies: [Int64] = [0, 14, 18, 45, 46, 46, 48, 74, 81, 97, 99, 107, 108, 109]
}
