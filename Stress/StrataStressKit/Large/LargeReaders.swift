import Foundation
import Strata

/// A reader's context and its floors: for each key, the highest version merged into the
/// context so far. Kept by one worker thread.
struct ReaderState {
    /// The reader's root context.
    let context: ManagedObjectContext
    /// Its inbox in the fan-out.
    let inbox: Int
    /// The least version each merged key may show from now on.
    var floors: [Int64: Int64] = [:]
}

/// The readers: pages, faults, batched walks — every row checked for order, contents and
/// staleness against the saves the reader has merged.
extension LargeWorkload {
    /// Merges every save published since the last call into the reader's context
    /// (`mergeChanges(fromContextDidSave:)`), then raises its floors. Call on the context's queue.
    func absorbMerges(_ reader: inout ReaderState, tally: inout WorkerTally) {
        let saves = fanout.take(reader.inbox)
        guard !saves.isEmpty else { return }
        var ids = Set<ManagedObjectID>()
        for save in saves { ids.formUnion(save.ids) }
        let notification = Notification(
            name: .managedObjectContextDidSave, object: nil,
            userInfo: [
                ManagedObjectContext.NotificationKey.insertedObjectIDs: Set<ManagedObjectID>(),
                ManagedObjectContext.NotificationKey.updatedObjectIDs: ids,
                ManagedObjectContext.NotificationKey.deletedObjectIDs: Set<ManagedObjectID>(),
            ])
        let start = DispatchTime.now()
        reader.context.mergeChanges(fromContextDidSave: notification)
        tally.stats["merge", default: LatencyStats()].record(Self.seconds(since: start), rows: ids.count)
        for save in saves {
            for (key, version) in save.versions where version > reader.floors[key, default: 0] { reader.floors[key] = version }
        }
        tally.count("saves merged by \(reader.context.name ?? "?")", saves.count)
    }

    /// Checks one row read at a position that calls for `expectedKey`.
    func check(_ record: Record, expectedKey: Int64, reader: ReaderState, tally: inout WorkerTally, where place: String) {
        let key = record.key
        tally.count("rows checked")
        if key != expectedKey { tally.violate(.order, "\(place): key \(key) where \(expectedKey) belongs") }
        if record.name != LargeModel.name(of: key) || record.score != LargeModel.score(of: key) {
            tally.violate(.content, "\(place): row \(key) reads name \(record.name), score \(record.score)")
        }
        if let floor = reader.floors[key] {
            tally.count("rows checked against a merged version")
            let version = record.version
            if version < floor { tally.violate(.stale, "\(place): row \(key) reads version \(version) after a merge of version \(floor)") }
        }
    }

    /// A start for a range of `span` keys: three times in ten among the hot keys.
    func rangeStart(span: Int, random: inout SeededGenerator) -> Int {
        let rows = configuration.rows
        let limit = random.chance(0.3) ? min(configuration.hotKeys, rows) : rows
        return random.index(max(1, limit - span + 1))
    }

    /// One page of `pageSize` records sorted by key, at a random page number: page k must hold
    /// exactly keys k·size ..< (k+1)·size, in order.
    func page(_ reader: inout ReaderState, random: inout SeededGenerator, tally: inout WorkerTally) {
        let size = configuration.pageSize
        let rows = configuration.rows
        let pages = (rows + size - 1) / size
        let number = random.chance(0.3) ? random.index(max(1, min(configuration.hotKeys, rows) / size)) : random.index(pages)
        let context = reader.context
        context.performAndWait {
            absorbMerges(&reader, tally: &tally)
            let request = LargeModel.allRecords()
            request.fetchOffset = number * size
            request.fetchLimit = size
            request.returnsObjectsAsFaults = false
            let start = DispatchTime.now()
            do {
                let records = try context.fetch(request)
                let expected = min(size, rows - number * size)
                if records.count != expected { tally.violate(.order, "page \(number) holds \(records.count) rows, not \(expected)") }
                for (position, record) in records.enumerated() {
                    check(record, expectedKey: Int64(number * size + position), reader: reader, tally: &tally, where: "page \(number)")
                }
                tally.stats["page (\(size) rows)", default: LatencyStats()].record(Self.seconds(since: start), rows: records.count)
            } catch {
                counters.fail("page \(number) in \(context.name ?? "?"): \(error)")
            }
        }
    }

    /// A range of `faultSpan` keys fetched as faults, then each fault fired by reading it.
    func fireFaults(_ reader: inout ReaderState, random: inout SeededGenerator, tally: inout WorkerTally) {
        let span = min(configuration.faultSpan, configuration.rows)
        let lower = rangeStart(span: span, random: &random)
        let context = reader.context
        context.performAndWait {
            absorbMerges(&reader, tally: &tally)
            let request = LargeModel.records(in: Int64(lower)..<Int64(lower + span))
            request.returnsObjectsAsFaults = true
            do {
                let start = DispatchTime.now()
                let records = try context.fetch(request)
                tally.stats["fetch \(span) faults", default: LatencyStats()].record(Self.seconds(since: start), rows: records.count)
                if records.count != span { tally.violate(.order, "range at \(lower) holds \(records.count) rows, not \(span)") }
                let fire = DispatchTime.now()
                for (position, record) in records.enumerated() {
                    check(record, expectedKey: Int64(lower + position), reader: reader, tally: &tally, where: "faults at \(lower)")
                }
                tally.stats["fire \(span) faults", default: LatencyStats()].record(Self.seconds(since: fire), rows: records.count)
            } catch {
                counters.fail("faults at \(lower) in \(context.name ?? "?"): \(error)")
            }
            if random.chance(0.1) { context.reset() }
        }
    }

    /// A batched walk (`fetchBatched`, `fetchBatchSize` rows a batch) over `walkSpan` keys (the
    /// whole table for the first walk when ``LargeRun/Configuration/fullWalk`` is on), merging
    /// the published saves between batches, so later batches must show what was merged.
    func walk(_ reader: inout ReaderState, random: inout SeededGenerator, tally: inout WorkerTally, until deadline: DispatchTime) {
        let whole = configuration.fullWalk && tally.counts["walks", default: 0] == 0
        let span = whole ? configuration.rows : min(configuration.walkSpan, configuration.rows)
        let lower = whole ? 0 : rangeStart(span: span, random: &random)
        let batchSize = configuration.batchSize
        let context = reader.context
        context.performAndWait {
            absorbMerges(&reader, tally: &tally)
            let request = LargeModel.records(in: Int64(lower)..<Int64(lower + span))
            request.fetchBatchSize = batchSize
            do {
                let start = DispatchTime.now()
                let results = try context.fetchBatched(request)
                tally.stats["walk: fetch \(whole ? "all" : String(span)) IDs", default: LatencyStats()].record(Self.seconds(since: start), rows: results.count)
                if results.count != span { tally.violate(.order, "walk at \(lower) finds \(results.count) rows, not \(span)") }
                var position = 0
                while position < results.count {
                    if DispatchTime.now() > deadline { break }
                    let end = min(position + batchSize, results.count)
                    let batchStart = DispatchTime.now()
                    absorbMerges(&reader, tally: &tally)
                    for index in position..<end {
                        check(results[index], expectedKey: Int64(lower + index), reader: reader, tally: &tally, where: "walk at \(lower), row \(index)")
                    }
                    tally.stats["walk: batch of \(batchSize)", default: LatencyStats()].record(Self.seconds(since: batchStart), rows: end - position)
                    position = end
                }
                let batches = (position + batchSize - 1) / batchSize
                if results.batchesLoaded != batches || results.batchesReleased != max(0, batches - results.retainedBatchCount) {
                    tally.violate(
                        .batches, "walk of \(position) rows loaded \(results.batchesLoaded) batches (expected \(batches)), released \(results.batchesReleased)")
                }
                if position == results.count {
                    tally.stats["walk of \(whole ? "all" : String(span)) rows", default: LatencyStats()].record(Self.seconds(since: start), rows: position)
                    tally.count("walks")
                }
            } catch {
                counters.fail("walk at \(lower) in \(context.name ?? "?"): \(error)")
            }
            context.reset()
        }
    }
}
