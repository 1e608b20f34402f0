/// Managed objects as the in-memory evaluator reads them (pending changes overlaid on fetches).
extension ManagedObject: EvaluationRow {
    var evaluationObjectID: ManagedObjectID { objectID }

    func evaluationAttribute(slot: Int) -> StoredValue {
        fireFaultIfNeeded()
        return slot < attributeValues.count ? attributeValues[slot] : .null
    }

    func evaluationToOneID(slot: Int) -> ManagedObjectID? {
        fireFaultIfNeeded()
        return slot < toOneValues.count ? toOneValues[slot] : nil
    }

    func evaluationToOneRow(slot: Int) -> (any EvaluationRow)? {
        guard let id = evaluationToOneID(slot: slot) else { return nil }
        return relatedObject(id)
    }

    func evaluationToManyRows(slot: Int) -> [any EvaluationRow] {
        toManyObjects(slot: slot)
    }
}
