"""Running the diagram from the window: the engine adapter, run control, workers, files and errors."""
