/// The two dates a ``JSONWriter`` rendered last (``RenderedDate``), most recent first, so that a date written again
/// soon after is copied instead of converted and formatted again.
///
/// Two, because a receipt's dates come back in pairs: an entry's purchase date often equals its original purchase
/// date, and a renewal's original purchase date is the one the previous entry wrote. Over the 79 KB receipt with 187
/// purchases (561 dates), the latest alone holds 135 of them, two 248, four 289 (a list to search on every date).
struct RecentDates {
    private var latest: RenderedDate?
    private var previous: RenderedDate?

    /// `date`'s values: those rendered before when `date` is one of the two last, else rendered now and kept.
    mutating func rendered(_ date: ReceiptDate) -> RenderedDate {
        let milliseconds = date.millisecondsSince1970
        if let latest, latest.milliseconds == milliseconds { return latest }
        if let previous, previous.milliseconds == milliseconds {
            swap(&latest, &self.previous)
            return previous
        }
        let rendered = RenderedDate(date)
        previous = latest
        latest = rendered
        return rendered
    }
}
