-- The desktop app's overview of an audit's latest analysis (JSON, under the summary's
-- policy), so that opening a finished audit shows it at once while the analysis is
-- rebuilt for the tables. Cleared whenever the summary row is replaced.
ALTER TABLE analysis_summary ADD COLUMN overview TEXT;
